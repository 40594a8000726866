#version 330 core
// A heatmap with masked cells, at its on-screen size: each pixel takes its cell's colour
// (heatmap.frag's texture, one texel per cell), and masked cells (alpha 0 there) get
// diagonal stripes in screen pixels, readable at any cell size. Only heatmaps with a
// masked cell pay for this pass; the others are drawn straight from the cells' texture.
in vec2 uv;
out vec4 color;

uniform sampler2D u_cell_colors;
uniform ivec2 u_cells;  // columns, rows
uniform vec3 u_masked_bg;
uniform vec3 u_masked_stripe;

void main() {
    ivec2 cell = min(ivec2(uv * vec2(u_cells)), u_cells - 1);
    vec4 c = texelFetch(u_cell_colors, cell, 0);
    if (c.a < 0.5) c = vec4(mod(gl_FragCoord.x + gl_FragCoord.y, 8.0) < 3.0 ? u_masked_stripe : u_masked_bg, 1.0);
    color = c;
}
