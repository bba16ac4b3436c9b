/*
 * write_segments.c — a task that writes a block and submits nested tasks gives
 * the block back before each submission and fetches it again on its next use:
 * the later segment must find the earlier segment's stores.  With cwrite(A[0])
 * the second fetch gave a new private copy, and the first segment's stores were
 * lost (`0 3 7 7`, sequential `7 3 7 7`) before tammcc held such blocks as
 * creadwrite (readwrite for an inferred or declared write).
 * Differential test: the output must equal the sequential elision's.
 */
#include <tamm.h>
#include <stdio.h>
static void fill(double *p, int n, double v) { for (int i = 0; i < n; i++) p[i] = v; }
int main(int argc, char **argv)
{
    if (tamm_init(&argc, &argv) != TAMM_OK) return 1;
    size_t d[1] = {8}, t[1] = {4}, da[1] = {12};
    tamm_tensor *A = tamm_tensor_create("A", TAMM_F64, 1, da, t);
    tamm_tensor *B = tamm_tensor_create("B", TAMM_F64, 1, d, t);
    double *b0 = tamm_block(B, 0); fill(b0, 4, 0);
    double *b1 = tamm_block(B, 1); fill(b1, 4, 0);
    #pragma tamm task cwrite(A[0])
    {
        double *a = tamm_block(A, 0);
        for (int i = 0; i < 4; i++) a[i] = 7;
        #pragma tamm task
        {
            double *b = tamm_block(B, 1);
            b[0] += 1;
        }
        double *a2 = tamm_block(A, 0);
        a2[1] = 3;
    }
    #pragma tamm task
    {
        double *a = tamm_block(A, 1);
        for (int i = 0; i < 4; i++) a[i] = 5;
        #pragma tamm task
        {
            double *b = tamm_block(B, 0);
            b[0] += 1;
        }
        double *a2 = tamm_block(A, 1);
        a2[1] = 3;
    }
    #pragma tamm task write(A[2])
    {   /* a declared write, a taskwait between the segments */
        double *a = tamm_block(A, 2);
        for (int i = 0; i < 4; i++)
            a[i] = 9 + i;
        #pragma tamm task
        {
            double *b = tamm_block(B, 1);
            b[1] += 2;
        }
        #pragma tamm taskwait
        double *a2 = tamm_block(A, 2);
        a2[3] = -1;
    }
    tamm_wait_all();
    const double *a = tamm_block(A, 0), *a1 = tamm_block(A, 1), *a2 = tamm_block(A, 2);
    const double *c0 = tamm_block(B, 0), *c1 = tamm_block(B, 1);
    printf("%g %g %g %g | %g %g %g %g | %g %g %g %g\n", a[0], a[1], a[2], a[3], a1[0], a1[1], a1[2], a1[3], a2[0],
           a2[1], a2[2], a2[3]);
    printf("%g %g\n", c0[0], c1[0] + c1[1]);
    tamm_finalize();
    return 0;
}
