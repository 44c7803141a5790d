// Weight packing for the GEMM: OHWI weights and the bias, once at load time, into the panel
// layout every microkernel reads (per panel of 16 outputs: 16 biases, then 16 weights per tap and
// input channel), in float32 or, for weights that are exactly half-precision values, in half
// precision (the biases stay float32).
#include "gemm_internal.h"

size_t ck_conv_packed_size(size_t output_channels, size_t taps, size_t input_channels) {
    size_t panels = (output_channels + NR - 1) / NR;
    return panels * NR * (1 + taps * input_channels);
}

void ck_conv_pack(size_t n, size_t taps, size_t k, const float *weights, const float *bias,
                  float *packed) {
    size_t panels = (n + NR - 1) / NR;
    size_t kk = taps * k;
    for (size_t p = 0; p < panels; p++) {
        float *dst = packed + p * NR * (1 + kk);
        for (size_t j = 0; j < NR; j++) {
            size_t o = p * NR + j;
            dst[j] = (o < n && bias != NULL) ? bias[o] : 0.0f;
        }
        dst += NR;
        for (size_t r = 0; r < kk; r++) {
            for (size_t j = 0; j < NR; j++) {
                size_t o = p * NR + j;
                dst[r * NR + j] = o < n ? weights[o * kk + r] : 0.0f;
            }
        }
    }
}

size_t ck_conv_packed_bytes_f16(size_t output_channels, size_t taps, size_t input_channels) {
    return (output_channels + NR - 1) / NR * gemm_panel_bytes_f16(taps * input_channels);
}

/// The half-precision value of `value` when it has one exactly (returns 1), else 0.
static int f32_to_f16_exact(float value, uint16_t *half) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    uint32_t sign = (bits >> 16) & 0x8000u;
    uint32_t exponent = (bits >> 23) & 0xffu;
    uint32_t mantissa = bits & 0x7fffffu;
    if (exponent == 0xffu) { // infinity or NaN: keep infinities, refuse NaN payloads
        if (mantissa != 0) return 0;
        *half = (uint16_t)(sign | 0x7c00u);
        return 1;
    }
    if (exponent == 0 && mantissa == 0) {
        *half = (uint16_t)sign;
        return 1;
    }
    if (exponent == 0) return 0; // float32 subnormals are far below half precision
    int e = (int)exponent - 127;
    if (e > 15) return 0;
    if (e >= -14) { // normal half: 10 mantissa bits
        if (mantissa & 0x1fffu) return 0;
        *half = (uint16_t)(sign | ((uint32_t)(e + 15) << 10) | (mantissa >> 13));
        return 1;
    }
    if (e < -24) return 0;
    // Subnormal half: value = m * 2^-24 with m < 1024.
    uint32_t full = mantissa | 0x800000u; // 1.mantissa as 24 bits, value = full * 2^(e-23)
    int shift = -14 - e + 13;            // bits dropped to reach units of 2^-24
    if (full & ((1u << shift) - 1u)) return 0;
    *half = (uint16_t)(sign | (full >> shift));
    return 1;
}

int ck_f16_exact(const float *values, size_t count) {
    uint16_t half;
    for (size_t i = 0; i < count; i++) {
        if (!f32_to_f16_exact(values[i], &half)) return 0;
    }
    return 1;
}

void ck_conv_pack_f16(size_t n, size_t taps, size_t k, const float *weights, const float *bias,
                      void *packed) {
    size_t panels = (n + NR - 1) / NR;
    size_t kk = taps * k;
    for (size_t p = 0; p < panels; p++) {
        char *panel = (char *)packed + p * gemm_panel_bytes_f16(kk);
        float *biases = (float *)(void *)panel;
        uint16_t *dst = (uint16_t *)(void *)(panel + NR * sizeof(float));
        for (size_t j = 0; j < NR; j++) {
            size_t o = p * NR + j;
            biases[j] = (o < n && bias != NULL) ? bias[o] : 0.0f;
        }
        for (size_t r = 0; r < kk; r++) {
            for (size_t j = 0; j < NR; j++) {
                size_t o = p * NR + j;
                uint16_t half = 0;
                if (o < n && !f32_to_f16_exact(weights[o * kk + r], &half)) half = 0x7e00u; // NaN: caller skipped the check
                dst[r * NR + j] = half;
            }
        }
    }
}
