#version 330 core
// Colours one matrix (a GL_R32F texture, one texel per cell) into the heatmap's
// framebuffer. The colour maps come from shaders/colormaps.txt as uniforms, so the
// tests can evaluate exactly the same map.
in vec2 uv;
out vec4 color;

const int MAX_STOPS = 16;
const int MODE_SEQUENTIAL = 0;  // lo..hi on the sequential map
const int MODE_DIVERGING = 1;   // -m..+m on the diverging map, 0 in the middle
const int MODE_MASK = 2;        // 1 = masked (striped), 0 = kept

uniform sampler2D u_values;
uniform ivec2 u_cells;          // columns, rows
uniform int u_mode;
uniform float u_lo;
uniform float u_hi;
uniform float u_grid;           // width in pixels of the gap between cells (0: none)
uniform vec3 u_seq[MAX_STOPS];
uniform float u_seq_pos[MAX_STOPS];
uniform int u_seq_count;
uniform vec3 u_div[MAX_STOPS];
uniform float u_div_pos[MAX_STOPS];
uniform int u_div_count;
uniform vec3 u_masked_bg;
uniform vec3 u_masked_stripe;
uniform vec3 u_kept;
uniform vec3 u_gap;

vec3 seq_map(float t) {
    t = clamp(t, 0.0, 1.0);
    for (int i = 0; i + 1 < u_seq_count; ++i)
        if (t <= u_seq_pos[i + 1])
            return mix(u_seq[i], u_seq[i + 1], (t - u_seq_pos[i]) / (u_seq_pos[i + 1] - u_seq_pos[i]));
    return u_seq[u_seq_count - 1];
}

vec3 div_map(float t) {
    t = clamp(t, 0.0, 1.0);
    for (int i = 0; i + 1 < u_div_count; ++i)
        if (t <= u_div_pos[i + 1])
            return mix(u_div[i], u_div[i + 1], (t - u_div_pos[i]) / (u_div_pos[i + 1] - u_div_pos[i]));
    return u_div[u_div_count - 1];
}

vec3 stripes() {
    // Diagonal stripes in screen pixels: readable at any cell size.
    return mod(gl_FragCoord.x + gl_FragCoord.y, 8.0) < 3.0 ? u_masked_stripe : u_masked_bg;
}

void main() {
    vec2 pos = uv * vec2(u_cells);
    ivec2 cell = min(ivec2(pos), u_cells - 1);
    // Gaps between cells, only where cells are large enough to keep their colour readable.
    if (u_grid > 0.0) {
        vec2 px_per_cell = 1.0 / fwidth(pos);
        vec2 inside = fract(pos) * px_per_cell;
        if (inside.x < u_grid || inside.y < u_grid) { color = vec4(u_gap, 1.0); return; }
    }
    float v = texelFetch(u_values, cell, 0).r;
    vec3 c;
    if (u_mode == MODE_MASK) {
        c = v > 0.5 ? stripes() : u_kept;
    } else if (isinf(v) && v < 0.0) {
        c = stripes();
    } else if (u_mode == MODE_DIVERGING) {
        float m = max(abs(u_lo), abs(u_hi));
        c = div_map(m > 0.0 ? 0.5 + 0.5 * v / m : 0.5);
    } else {
        c = seq_map(u_hi > u_lo ? (v - u_lo) / (u_hi - u_lo) : 0.0);
    }
    color = vec4(c, 1.0);
}
