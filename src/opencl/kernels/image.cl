/* TendTo's Linear-System-Solver, image ping-pong (built for REAL=float only): the augmented
 * matrix lives in two CL_R/CL_FLOAT images, texel (x = column, y = row).
 * OpenCL 1.2 cannot read and write one image in a kernel, so the pivot swap
 * is folded into the frame exactly as in pingpong.cl. */
__constant sampler_t ls_smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

float texel(__read_only image2d_t m, int row, int col)
{
    return read_imagef(m, ls_smp, (int2)(col, row)).x;
}

__kernel void frame_image(__read_only image2d_t in, __write_only image2d_t out, int n, int w,
                          int k, __global const int *piv)
{
    int j = k + (int)get_global_id(0);
    int i = k + (int)get_global_id(1);
    if (j >= w || i >= n)
        return;
    int p = piv[k];
    float pj = texel(in, p, j);
    if (i == k) {
        write_imagef(out, (int2)(j, k), (float4)(pj, 0.0f, 0.0f, 0.0f));
        return;
    }
    int src = i == p ? k : i;
    float f = LS_MULTIPLIER(texel(in, src, k), texel(in, p, k));
    write_imagef(out, (int2)(j, i), (float4)(texel(in, src, j) - f * pj, 0.0f, 0.0f, 0.0f));
}

/* As rowops.cl's pivot_search, reading column k of an image. */
__kernel void pivot_search_image(__read_only image2d_t m, int n, int k, int search,
                                 __global int *piv, __global int *info, __local float *best,
                                 __local int *best_row)
{
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    float bv = -1.0f;
    int br = k;
    if (search) {
        for (int i = k + lid; i < n; i += L) {
            float v = fabs(texel(m, i, k));
            if (v > bv) {
                bv = v;
                br = i;
            }
        }
    } else if (lid == 0) {
        bv = fabs(texel(m, k, k));
    }
    ls_pivot_record(bv, br, k, piv, info, best, best_row);
}

/* As rowops.cl's back_substitute with layout 1, reading the two images. */
__kernel void back_substitute_image(__read_only image2d_t m0, __read_only image2d_t m1, int n,
                                    __global float *X, __local float *partial)
{
    int c = (int)get_group_id(0);
    int lid = (int)get_local_id(0);
    int L = (int)get_local_size(0);
    __global float *x = X + (size_t)c * n;
    for (int i = n - 1; i >= 0; --i) {
        int which = (i < n - 1 ? i + 1 : n - 1) & 1;
        float s = 0.0f;
        for (int j = i + 1 + lid; j < n; j += L)
            s += (which ? texel(m1, i, j) : texel(m0, i, j)) * x[j];
        partial[lid] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int h = L / 2; h > 0; h >>= 1) {
            if (lid < h)
                partial[lid] += partial[lid + h];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lid == 0) {
            float rhs = which ? texel(m1, i, n + c) : texel(m0, i, n + c);
            float d = which ? texel(m1, i, i) : texel(m0, i, i);
            x[i] = (rhs - partial[0]) / d;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
    }
}
