/*
 * reads_shapes.c — values outside tensors of every kind a task can read at submission (rule 40
 * of docs/language.md), changed by the submitting code after the submission: _Bool, an
 * enumeration, a bit-field (also through a pointer to const, whose copy is assigned), a
 * member through a pointer to const data, an element of a pointer to an array, a char, an
 * element of a global two-dimensional array, and '*' of a member.  Differential test: output
 * must equal the sequential elision's.
 */
#include <tamm.h>
#include <stdio.h>
#include <stdbool.h>
enum color { RED, GREEN = 5 };
typedef struct { bool on; enum color c; unsigned bits : 3; const double *v; double (*m)[2]; char ch; } cfg_t;
static const cfg_t *gcfg;
double mat[2][2] = { { 1, 2 }, { 3, 4 } };
int main(int argc, char **argv)
{
    tamm_init(&argc, &argv);
    size_t one[1] = {8};
    tamm_tensor *X = tamm_tensor_create("X", TAMM_F64, 1, one, one);
    double vals[3] = { 0.5, 1.5, 2.5 };
    cfg_t cfg = { true, GREEN, 5, vals, mat, 'a' };
    cfg_t *c = &cfg;
    gcfg = &cfg;
    #pragma tamm task
    {
        double *x = tamm_block(X, 0);
        x[0] = c->on; x[1] = c->c; x[2] = c->bits; x[3] = c->v[1]; x[4] = c->m[1][0]; x[5] = c->ch;
        x[6] = gcfg->bits + mat[0][1]; x[7] = *c->v;
    }
    c->on = false; c->c = RED; c->bits = 1; vals[1] = -1; mat[1][0] = -3; c->ch = 'z'; mat[0][1] = 9; vals[0] = 7;
    #pragma tamm taskwait
    const double *x = tamm_block(X, 0);
    for (int i = 0; i < 8; i++) printf("%g ", x[i]);
    printf("\n");
    return tamm_finalize() == TAMM_OK ? 0 : 1;
}
