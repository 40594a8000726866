#version 330 core
// Colours one matrix (a GL_R32F texture, one texel per cell) into a texture of one
// texel per cell, drawn on screen stretched: a cell's colour is worked out once, not at
// every pixel it covers (under software GL that loop over the stops, at every pixel of
// every heatmap, was most of a frame after each change). Masked cells get alpha 0:
// heatmap_stripes.frag draws them striped. The colour maps come from
// shaders/colormaps.txt as uniforms, so the tests can evaluate exactly the same map.
out vec4 color;

const int MAX_STOPS = 16;
const int MODE_SEQUENTIAL = 0;  // lo..hi on the sequential map
const int MODE_DIVERGING = 1;   // -m..+m on the diverging map, 0 in the middle
const int MODE_MASK = 2;        // 1 = masked (striped), 0 = kept

uniform sampler2D u_values;
uniform int u_mode;
uniform float u_lo;
uniform float u_hi;
uniform vec3 u_seq[MAX_STOPS];
uniform float u_seq_pos[MAX_STOPS];
uniform int u_seq_count;
uniform vec3 u_div[MAX_STOPS];
uniform float u_div_pos[MAX_STOPS];
uniform int u_div_count;
uniform vec3 u_kept;

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

void main() {
    ivec2 cell = ivec2(gl_FragCoord.xy);  // the target has one pixel per cell
    float v = texelFetch(u_values, cell, 0).r;
    const vec4 masked = vec4(0.0);
    if (u_mode == MODE_MASK) {
        color = v > 0.5 ? masked : vec4(u_kept, 1.0);
    } else if (isinf(v) && v < 0.0) {
        color = masked;
    } else if (u_mode == MODE_DIVERGING) {
        float m = max(abs(u_lo), abs(u_hi));
        color = vec4(div_map(m > 0.0 ? 0.5 + 0.5 * v / m : 0.5), 1.0);
    } else {
        color = vec4(seq_map(u_hi > u_lo ? (v - u_lo) / (u_hi - u_lo) : 0.0), 1.0);
    }
}
