// SiLU (swish, x * logistic(x)) with an optional per-channel scale and shift first: the chain
// MUL (by a constant), ADD (a constant), LOGISTIC, MUL that models write for a batch
// normalisation followed by SiLU, done in one pass. Each step is rounded as the separate
// operators round it (no fused multiply-add), so the result equals running them one by one.
#include "ck_internal.h"
#include "ck_simd8.h"

#include <math.h>

static void silu_portable(const float *input, const float *scale, const float *shift, float *output,
                          size_t count, size_t channels) {
    for (size_t i = 0; i < count; i++) {
        const size_t c = i % channels;
        float y = input[i];
        if (scale != NULL) y = y * scale[c];
        if (shift != NULL) y = y + shift[c];
        const float s = 1.0f / (1.0f + expf(-y));
        output[i] = y * s;
    }
}

#if defined(CK_SIMD8)
CK_SIMD8_FN static void silu_simd(const float *input, const float *scale, const float *shift, float *output,
                                  size_t count, size_t channels) {
    const ck_v8 one = v8_set1(1.0f), zero = v8_zero();
    for (size_t row = 0; row < count; row += channels) {
        const float *x = input + row;
        float *out = output + row;
        for (size_t c = 0; c < channels; c += 8) {
            const size_t lanes = CK_MIN((size_t)8, channels - c);
            ck_v8 y = lanes == 8 ? v8_load(x + c) : v8_load_partial(x + c, lanes);
            if (scale != NULL) y = v8_mul(y, lanes == 8 ? v8_load(scale + c) : v8_load_partial(scale + c, lanes));
            if (shift != NULL) y = v8_add(y, lanes == 8 ? v8_load(shift + c) : v8_load_partial(shift + c, lanes));
            const ck_v8 s = v8_div(one, v8_add(one, v8_exp(v8_sub(zero, y))));
            y = v8_mul(y, s);
            if (lanes == 8) {
                v8_store(out + c, y);
            } else {
                v8_store_partial(out + c, y, lanes);
            }
        }
    }
}
#endif

void ck_silu(const float *input, const float *scale, const float *shift, float *output, size_t count,
             size_t channels) {
    if (count == 0 || channels == 0 || count % channels != 0) return;
#if defined(CK_SIMD8)
    if (ck_use_simd8()) {
        silu_simd(input, scale, shift, output, count, channels);
        return;
    }
#endif
    silu_portable(input, scale, shift, output, count, channels);
}
