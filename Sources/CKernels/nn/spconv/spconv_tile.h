// The sparse convolution's tile drivers, written once for every SIMD instruction set
// (spconv_simd8.c, spconv_avx512.c): the order of the transposes, products and stores over a
// tile, with the input in one channel block or several. A file defines its kernels
// sp_load_block_<ISA>, sp_block_any_<ISA> and sp_store_block_<ISA> (with the parameters of the
// _simd8 ones) and the following, then includes this header, which defines sp_tile_<ISA>,
// sp_shared_transpose_<ISA> and sp_shared_<ISA> (spconv_internal.h), with the helper
// sp_last_block_<ISA>, and undefines them:
//   SP_ISA   the instruction set's suffix (simd8, avx512)
//   SP_FN    its kernels' function attribute
// (No include guard: each inclusion defines one instruction set's drivers.)

#define SP_NAME(base) CK_ISA_NAME(base, SP_ISA)

/// A tile's last channel block `blk` over output channels [jb, je), SP_OUTPUT_BLOCK of them at a
/// time, each part stored (sp_store_block) while its results are still in the L1 cache. Storing
/// the results of all channels after the block read them back from the L2 cache (288 KB for
/// pose_detection's 7x7x192 -> 1152 layers), and its 7x7 layers took 15 % longer with AVX-512
/// on a 2-vCPU Intel Xeon (family 6, model 207; scripts/dev/spconv-rates). With AVX2 all its
/// shapes together take 1 % longer in parts there, and whole pose_detection runs as fast either
/// way (docs/benchmarks.md).
SP_FN static void SP_NAME(sp_last_block)(const sp_job *job, size_t i0, size_t V, size_t blk, size_t jb, size_t je,
                                         const float *xt, float *yt) {
    for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
        const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
        SP_NAME(sp_block_any)(V, job, blk, blk == 0, j0, j1, xt, yt);
        SP_NAME(sp_store_block)(job->p, i0, V, j0, j1, yt);
    }
}

/// One tile: pixels [i0, i0 + 8 * V), output channels [0, je) (all of them: the driver passes
/// p->n).
SP_FN void SP_NAME(sp_tile)(const sp_job *job, size_t i0, size_t V, size_t je, float *scratch) {
    const size_t jb = 0;
    const ck_spconv_params *p = job->p;
    const size_t k = p->k;
    float *xt = scratch, *yt = scratch + job->l.blocks * job->l.block_size * TILE;
    // Every channel block but the last adds to the results of all output channels in yt; the
    // last one (the only one when the input fits in one) ends with the store (sp_last_block).
    const size_t last = job->l.blocks - 1;
    for (size_t blk = 0; blk < last; blk++) {
        const size_t k0 = blk * job->l.block_size;
        SP_NAME(sp_load_block)(p, i0, V, k0, CK_MIN(k, k0 + job->l.block_size), xt);
        SP_NAME(sp_block_any)(V, job, blk, blk == 0, jb, je, xt, yt);
    }
    SP_NAME(sp_load_block)(p, i0, V, last * job->l.block_size, k, xt);
    SP_NAME(sp_last_block)(job, i0, V, last, jb, je, xt, yt);
}

/// Shared-input mode: input channels [k0, k1) of the single tile, transposed into xt.
SP_FN void SP_NAME(sp_shared_transpose)(const sp_job *job, size_t k0, size_t k1, float *xt) {
    SP_NAME(sp_load_block)(job->p, 0, job->vectors, k0, k1, xt);
}

/// Shared-input mode: output channels [jb, je) of the single tile, from the transposed input
/// of every channel block at xt (this thread's copy), results through this thread's yt.
SP_FN void SP_NAME(sp_shared)(const sp_job *job, size_t jb, size_t je, const float *xt, float *yt) {
    const size_t V = job->vectors, stride = job->l.block_size * TILE;
    const size_t last = job->l.blocks - 1;
    for (size_t blk = 0; blk < last; blk++) {
        SP_NAME(sp_block_any)(V, job, blk, blk == 0, jb, je, xt + blk * stride, yt);
    }
    SP_NAME(sp_last_block)(job, 0, V, last, jb, je, xt + last * stride, yt);
}

#undef SP_NAME
#undef SP_ISA
#undef SP_FN
