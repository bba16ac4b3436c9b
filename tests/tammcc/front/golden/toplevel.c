/* Top-level directives: taskwait on(...), fence, streaming. */
#include <tamm.h>

int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t dims[2] = { 64, 64 }, tile[2] = { 16, 16 };
    tamm_tensor *T = tamm_tensor_create("T", TAMM_F64, 2, dims, tile);
    #pragma tamm streaming
    {
        for (long i = 0; i < 4; i++) {
            #pragma tamm task
            {
                double *t = tamm_block(T, i, 0);
                t[0] += 1;
            }
        }
    }
    #pragma tamm taskwait on(T[0][0], T[1][:])
    #pragma tamm fence
    #pragma tamm taskwait on(T)
    #pragma tamm taskwait
    tamm_finalize();
    return 0;
}
