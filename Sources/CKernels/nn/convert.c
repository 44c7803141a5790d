// Half-precision weights to float32 (run once when a model is loaded).
#include "ck_internal.h"

static float half_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {
            // Subnormal half: normalise into a float exponent.
            int shift = 0;
            while ((mantissa & 0x400u) == 0) {
                mantissa <<= 1;
                shift++;
            }
            mantissa &= 0x3ffu;
            bits = sign | ((uint32_t)(127 - 15 + 1 - shift) << 23) | (mantissa << 13);
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13); // infinity or NaN (payload kept)
    } else {
        bits = sign | ((exponent + (127 - 15)) << 23) | (mantissa << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

void ck_f16_to_f32(const uint16_t *input, float *output, size_t count) {
    for (size_t i = 0; i < count; i++) output[i] = half_to_float(input[i]);
}
