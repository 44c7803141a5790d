// The depthwise convolution's portable row kernel: any geometry, pixel by pixel, 8 channels of a
// packed block at a time; the reference the SIMD kernels are tested against.
#include "dwconv_internal.h"

/// Channels [c_begin, c_end) of one output row, pixel by pixel.
void dw_row_portable(const ck_dwconv_params *p, size_t row, size_t c_begin, size_t c_end) {
    const size_t C = p->channels, taps = p->kernel_h * p->kernel_w;
    const dw_rows g = dw_row_geometry(p, row);
    float *out_row = p->output + row * p->out_w * C;
    for (size_t ox = 0; ox < p->out_w; ox++) {
        const ptrdiff_t ix0 = (ptrdiff_t)(ox * p->stride_w) - (ptrdiff_t)p->pad_left;
        for (size_t c0 = c_begin; c0 < c_end; c0 += CB) {
            const size_t n = CK_MIN(CB, c_end - c0);
            const float *w = p->packed + (c0 / CB) * CB * (1 + taps);
            float acc[CB];
            for (size_t j = 0; j < CB; j++) acc[j] = w[j];
            for (size_t ky = g.ky_begin; ky < g.ky_end; ky++) {
                const ptrdiff_t iy = g.iy0 + (ptrdiff_t)(ky * p->dilation_h);
                const float *r = g.image + (size_t)iy * p->in_w * C + c0;
                for (size_t kx = 0; kx < p->kernel_w; kx++) {
                    const ptrdiff_t ix = ix0 + (ptrdiff_t)(kx * p->dilation_w);
                    if (ix < 0 || ix >= (ptrdiff_t)p->in_w) continue;
                    const float *x = r + (size_t)ix * C;
                    const float *wk = w + CB + (ky * p->kernel_w + kx) * CB;
                    for (size_t j = 0; j < n; j++) acc[j] += x[j] * wk[j];
                }
            }
            float *out = out_row + ox * C + c0;
            for (size_t j = 0; j < n; j++) out[j] = ck_activate(acc[j], p->out_min, p->out_max, p->prelu, c0 + j);
        }
    }
}
