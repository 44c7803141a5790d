// The sparse convolution's tile drivers, written once for every SIMD instruction set
// (spconv_simd8.c, spconv_avx512.c): the order of the transposes, products and stores over a
// tile, with the input in one channel block or several. A file defines the following, then
// includes this header, which defines sp_tile_*, sp_shared_transpose_* and sp_shared_* (see
// spconv_internal.h) and undefines them:
//   SP_FN                     the instruction set's function attribute
//   SP_TILE, SP_SHARED_TRANSPOSE, SP_SHARED   the names of the three functions
//   SP_LOAD_BLOCK, SP_BLOCK_ANY, SP_STORE_BLOCK   its kernels, with the parameters of
//                             sp_load_block_simd8, sp_block_any_simd8 and sp_store_block_simd8
// (No include guard: each inclusion defines one set.)

/// One tile: pixels [i0, i0 + 8 * V), output channels [0, je) (every one: the caller passes
/// p->n; the first is a constant so that the compiler folds it).
SP_FN void SP_TILE(const sp_job *job, size_t i0, size_t V, size_t je, float *scratch) {
    const size_t jb = 0;
    const ck_spconv_params *p = job->p;
    const size_t k = p->k;
    float *xt = scratch, *yt = scratch + job->l.blocks * job->l.block_size * TILE;
    if (job->l.blocks == 1) {
        SP_LOAD_BLOCK(p, i0, V, 0, k, xt);
        for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
            const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
            SP_BLOCK_ANY(V, job, 0, 1, j0, j1, xt, yt);
            SP_STORE_BLOCK(p, i0, V, j0, j1, yt);
        }
        return;
    }
    for (size_t blk = 0; blk < job->l.blocks; blk++) {
        const size_t k0 = blk * job->l.block_size;
        SP_LOAD_BLOCK(p, i0, V, k0, CK_MIN(k, k0 + job->l.block_size), xt);
        SP_BLOCK_ANY(V, job, blk, blk == 0, jb, je, xt, yt);
    }
    SP_STORE_BLOCK(p, i0, V, jb, je, yt);
}

/// Shared-input mode, phase 1: input channels [k0, k1) of the single tile, transposed into xt.
SP_FN void SP_SHARED_TRANSPOSE(const sp_job *job, size_t k0, size_t k1, float *xt) {
    SP_LOAD_BLOCK(job->p, 0, job->vectors, k0, k1, xt);
}

/// Shared-input mode, phase 2: output channels [jb, je) of the single tile, from the
/// transposed input of every channel block at xt (slot 0's area), results through this
/// thread's yt.
SP_FN void SP_SHARED(const sp_job *job, size_t jb, size_t je, const float *xt, float *yt) {
    const size_t V = job->vectors, stride = job->l.block_size * TILE;
    if (job->l.blocks == 1) {
        for (size_t j0 = jb; j0 < je; j0 += SP_OUTPUT_BLOCK) {
            const size_t j1 = CK_MIN(je, j0 + SP_OUTPUT_BLOCK);
            SP_BLOCK_ANY(V, job, 0, 1, j0, j1, xt, yt);
            SP_STORE_BLOCK(job->p, 0, V, j0, j1, yt);
        }
        return;
    }
    for (size_t blk = 0; blk < job->l.blocks; blk++) SP_BLOCK_ANY(V, job, blk, blk == 0, jb, je, xt + blk * stride, yt);
    SP_STORE_BLOCK(job->p, 0, V, jb, je, yt);
}

#undef SP_FN
#undef SP_TILE
#undef SP_SHARED_TRANSPOSE
#undef SP_SHARED
#undef SP_LOAD_BLOCK
#undef SP_BLOCK_ANY
#undef SP_STORE_BLOCK
