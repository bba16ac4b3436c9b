/*
 * emit_cuda.c — the printer of the .cu file (docs/language.md "Variants"; see emit_cuda.h): it
 * prints what the planner (cuda_plan.h) decided, one printer function per form of CUDA variant:
 *
 *  CALL    the variant gets the blocks like the CPU variant and calls the function named by
 *          TAMM_CUDA_VARIANT with the same arguments, block uses replaced by the buffers;
 *  KERNEL  a __global__ kernel: the loops on the grid as grid-stride loops over 64-bit indices,
 *          the other loops of the nest in each thread in their order, owned accumulations in
 *          registers, reductions into partial sums (one per thread block, in shared memory
 *          through tamm_cc_block_sum) that a second kernel adds in index order; and the host
 *          function that obtains the buffers and launches it on the task's stream.
 *
 * The .cu declares the C file's args struct by the same printer (cc_emit_args_struct: its leading
 * fields, with canonical type spellings), so the variant reads the same bytes.
 */
#include "emit_cuda.h"
#include "cuda_plan.h"
#include "cuda_blas.h"
#include "cuda_devfn.h"
#include "cuda_src.h"
#include "emit_c.h"
#include "text.h"
#include "xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- the user's text */
static void acc_write(cc_cu_buf *o, const cc_cuda_plan *p, const cc_cuda_edit *x, void *arg);

static void put_text(cc_out *o, const cc_cuda_plan *p, size_t b, size_t e)
{
    cc_cu_buf t = { NULL, 0, 0 };
    cc_cu_put(&t, "", 0);
    cc_cu_render_to(&t, p, b, e, acc_write, NULL);
    cc_puts(o, t.s);
    free(t.s);
}

static char *node_code(const cc_cuda_plan *p, const cc_node *n)
{
    cc_cu_buf t = { NULL, 0, 0 };
    cc_cu_put(&t, "", 0);
    cc_cu_render_to(&t, p, n->b, n->e, acc_write, NULL);
    return t.s;
}

/* an accumulation 'lhs += rhs' as the plan says: into the thread's register, or in place */
static void acc_write(cc_cu_buf *o, const cc_cuda_plan *p, const cc_cuda_edit *x, void *arg)
{
    (void)arg;
    const cc_kelem *e = &p->k->el[x->elem];
    const cc_kacc *ka = e->group >= 0 ? &p->k->ka[e->group] : NULL;
    const char *s = p->u->ast.text;
    if (ka && ka->how != CC_KA_MEMORY) {
        char r[32];
        snprintf(r, sizeof r, ka->how == CC_KA_REGISTER ? "tamm_r%d_" : "tamm_s%d_", ka->how == CC_KA_REGISTER ? e->group : ka->slot);
        cc_cu_put(o, r, strlen(r));
        for (unsigned n = cc_count_nl(s, x->lhs->b, x->lhs->e); n; n--) cc_cu_put(o, "\n", 1);
    } else {
        cc_cu_render_to(o, p, x->lhs->b, x->lhs->e, acc_write, arg);
    }
    cc_cu_put(o, s + x->lhs->e, x->rhs->b - x->lhs->e); /* the operator, as written */
    cc_cu_render_to(o, p, x->rhs->b, x->rhs->e, acc_write, arg);
    cc_cu_put(o, s + x->rhs->e, x->e - x->rhs->e);
}

/* the indentation of the line where the user's text at off is */
static void indent_to(cc_out *o, const cc_cuda_plan *p, size_t off)
{
    const char *t = p->u->ast.text;
    size_t ls = off;
    while (ls > 0 && t[ls - 1] != '\n') ls--;
    for (size_t i = ls; i < off && (t[i] == ' ' || t[i] == '\t'); i++) cc_putn(o, t + i, 1);
}

/* ---------------------------------------------------------------- the host function */
static void emit_how(cc_out *o, const cc_task *t, int i)
{
    char *how = cc_access_how(t, i, "tamm_a_");
    cc_puts(o, how);
    free(how);
}

static void emit_host_prologue(cc_out *o, const cc_task *t)
{
    cc_printf(o, "extern \"C\" void %s(tamm_ctx *tamm_ctx_, void *tamm_args_)\n{\n", t->cuda_sym);
    for (int i = 0; i < t->npre; i++) cc_printf(o, "    %s;  /* from %s() */\n", t->pre[i], t->fname);
    cc_printf(o, "    struct %s_args *tamm_a_ = (struct %s_args *)tamm_args_;\n", t->name, t->name);
    for (int i = 0; i < t->ncap; i++) {
        char *d = cc_cu_decl(t->cap[i].type, t->cap[i].name);
        cc_printf(o, "    %s = tamm_a_->%s;\n", d, t->cap[i].field);
        free(d);
    }
    for (int i = 0; i < t->nacc; i++) {
        if (!t->acc[i].fetched) continue;
        cc_printf(o, "    void *tamm_b%d_ = tamm_cc_get(tamm_ctx_, tamm_a_->tamm_T%d, ", i, i);
        if (t->acc[i].nidx) cc_printf(o, "tamm_a_->tamm_i%d, ", i);
        else cc_puts(o, "NULL, ");
        emit_how(o, t, i);
        cc_printf(o, ");  /* %s */\n", t->acc[i].key);
    }
    /* a buffer the GPU could not provide (TAMM_ON_ERROR=return: the runtime reported the task's
     * error) never reaches a kernel as NULL: nothing is launched */
    int nf = 0;
    for (int i = 0; i < t->nacc; i++) nf += t->acc[i].fetched;
    if (nf) {
        cc_puts(o, "    if (");
        for (int i = 0, k = 0; i < t->nacc; i++)
            if (t->acc[i].fetched) cc_printf(o, "%s!tamm_b%d_", k++ ? " || " : "", i);
        cc_puts(o, ") {  /* no buffer: the task's error says why; nothing runs */\n");
        for (int i = t->nacc - 1; i >= 0; i--)
            if (t->acc[i].fetched) {
                cc_printf(o, "        tamm_cc_release(tamm_ctx_, &tamm_b%d_, ", i);
                emit_how(o, t, i);
                cc_puts(o, ");\n");
            }
        cc_puts(o, "        return;\n    }\n");
    }
    if (t->ncap) {
        cc_puts(o, "   ");
        for (int i = 0; i < t->ncap; i++) cc_printf(o, " (void)%s;", t->cap[i].name);
        cc_puts(o, "\n");
    }
}

static void emit_host_epilogue(cc_out *o, const cc_task *t)
{
    for (int i = t->nacc - 1; i >= 0; i--)
        if (t->acc[i].fetched) {
            cc_printf(o, "    tamm_cc_release(tamm_ctx_, &tamm_b%d_, ", i);
            emit_how(o, t, i);
            cc_puts(o, ");\n");
        }
    cc_puts(o, "}\n");
}

/* ---------------------------------------------------------------- form CALL */
static void emit_call(cc_out *o, const cc_cuda_plan *p)
{
    const cc_task *t = p->t;
    const cc_cuda_call *pc = &p->call;
    emit_host_prologue(o, t);
    char *fn = cc_spelling(cc_referenced(pc->call));
    cc_printf(o, "    /* %s() has TAMM_CUDA_VARIANT(%s) */\n", fn, pc->g);
    free(fn);
    cc_line_to(o, cc_line_of(&p->u->src, pc->call->b), p->u->src.name);
    indent_to(o, p, pc->call->b);
    cc_printf(o, pc->gstatus ? "long long tamm_st_ = (long long)%s(" : "%s(", pc->g);
    for (int i = 0; i < pc->nparams; i++) {
        if (i) cc_puts(o, ", ");
        cc_node *a = pc->call->kid[i + 1];
        put_text(o, p, a->b, a->e);
    }
    cc_puts(o, ");");
    cc_line_self(o);
    if (pc->gstatus) { /* the variant's status: nonzero is the task's error */
        cc_puts(o, "    if (tamm_st_ != 0) {\n        char tamm_m_[256];\n");
        cc_printf(o, "        snprintf(tamm_m_, sizeof tamm_m_, \"the CUDA variant %s() returned %%lld\", tamm_st_);\n", pc->g);
        cc_puts(o, "        (void)tamm_task_error(tamm_ctx_, TAMM_EDEVICE, tamm_m_);\n    }\n");
    }
    emit_host_epilogue(o, t);
}

/* ---------------------------------------------------------------- form KERNEL */
/* A grid-stride loop.  It counts in a 64-bit index, whatever the loop variable's type: the
 * stride blockDim * gridDim converted to a char or short can be zero or negative (an endless
 * kernel), an int index can overflow past the bound, and blockIdx * blockDim overflows 32 bits
 * on a grid of more than 2^32 threads.  The loop variable is that index converted back, once per
 * iteration. */
static void emit_grid_loop(cc_out *o, const cc_cuda_plan *p, int li, char axis)
{
    const cc_kloop *l = &p->k->loop[li];
    const char *W = !strcmp(l->type, "unsigned long") || !strcmp(l->type, "unsigned long long") ? "unsigned long long"
                                                                                                 : "long long";
    cc_line_to(o, cc_line_of(&p->u->src, l->f->b), p->u->src.name);
    indent_to(o, p, l->f->b);
    cc_printf(o, "for (%s tamm_k%d_ = (%s)(", W, li, W);
    put_text(o, p, l->lb->b, l->lb->e);
    cc_printf(o, ") + ((%s)blockIdx.%c * blockDim.%c + threadIdx.%c); tamm_k%d_ %s (%s)(", W, axis, axis, axis, li,
              l->le ? "<=" : "<", W);
    put_text(o, p, l->ub->b, l->ub->e);
    cc_printf(o, "); tamm_k%d_ += (%s)blockDim.%c * gridDim.%c) { %s %s = (%s)tamm_k%d_;", li, W, axis, axis, l->type,
              l->name, l->type, li);
}

/* the kernel's parameters: the host values its code uses and the buffers (decl 0: the launch's
 * arguments, each after a comma); returns how many were declared */
static int emit_params(cc_out *o, const cc_cuda_plan *p, int decl)
{
    const cc_kernel *k = p->k;
    const cc_task *t = p->t;
    int n = 0;
    for (int i = 0; i < k->sc.nb; i++) {
        const cc_kbind *b = &k->sc.b[i];
        if (b->acc >= 0 || !b->used) continue;
        if (decl) {
            char *d = cc_cu_decl(b->type, b->name);
            cc_printf(o, "%s%s", n++ ? ", " : "", d);
            free(d);
        } else {
            cc_printf(o, ", %s", b->name);
        }
    }
    for (int i = 0; i < t->nacc; i++)
        if (t->acc[i].fetched) {
            if (decl) cc_printf(o, "%svoid *tamm_b%d_", n++ ? ", " : "", i);
            else cc_printf(o, ", tamm_b%d_", i);
        }
    return n;
}

/* does the code of the main kernel (sum 0) or of the second kernel (sum 1) use block pointer b? */
static int pointer_used(const cc_kernel *k, int b, int sum)
{
    for (int i = 0; i < k->nel; i++) {
        const cc_kelem *e = &k->el[i];
        if (e->bind != b) continue;
        int reduced = e->group >= 0 && k->ka[e->group].how == CC_KA_REDUCE;
        if (sum ? reduced && k->ka[e->group].el == i : !reduced) return 1;
    }
    return 0;
}

/* what a kernel declares first: the enclosing function's local types (not for the body of a called
 * function, which cannot see them), the block pointers it uses */
static void emit_kernel_prelude(cc_out *o, const cc_cuda_plan *p, int sum)
{
    const cc_kernel *k = p->k;
    const cc_task *t = p->t;
    for (int i = 0; i < t->npre && !k->sc.fn; i++) cc_printf(o, "    %s;  /* from %s() */\n", t->pre[i], t->fname);
    for (int i = 0; i < k->sc.nb; i++) {
        const cc_kbind *b = &k->sc.b[i];
        if (b->acc < 0 || !pointer_used(k, i, sum)) continue;
        char *cast = cc_cu_decl(b->type, "");
        cc_printf(o, "    %s = (%s)tamm_b%d_;\n    (void)%s;\n", b->decl, cast, b->acc, b->name);
        free(cast);
    }
}

static const char *elem_type(const cc_kacc *ka) { return cc_cu_arith(ka->ek); }

/* slot s of the partial sums: bytes 8 * s * np on (every slot has room for 8-byte elements) */
static void emit_partials(cc_out *o, const cc_cuda_plan *p, const char *cq)
{
    const cc_kernel *k = p->k;
    for (int i = 0; i < k->nka; i++) {
        const cc_kacc *ka = &k->ka[i];
        if (ka->how != CC_KA_REDUCE) continue;
        if (ka->slot == 0)
            cc_printf(o, "    %s%s *tamm_p0_ = (%s%s *)tamm_part_;\n", cq, elem_type(ka), cq, elem_type(ka));
        else
            cc_printf(o, "    %s%s *tamm_p%d_ = (%s%s *)((%schar *)tamm_part_ + (size_t)%d * tamm_np_);\n", cq, elem_type(ka),
                      ka->slot, cq, elem_type(ka), cq, 8 * ka->slot);
    }
}

static void emit_kernel(cc_out *o, const cc_cuda_plan *p)
{
    const cc_kernel *k = p->k;
    const cc_task *t = p->t;
    cc_unit *u = p->u;
    int nt = k->bx * k->by;
    /* the kernel */
    cc_printf(o, "static __global__ void __launch_bounds__(%d) %s_kernel(", nt, t->name);
    int n = emit_params(o, p, 1);
    if (k->nslot) cc_printf(o, "%svoid *tamm_part_, unsigned tamm_np_", n ? ", " : "");
    else if (!n) cc_puts(o, "void");
    cc_puts(o, ")\n{\n");
    emit_kernel_prelude(o, p, 0);
    if (k->nslot) {
        emit_partials(o, p, "");
        for (int i = 0; i < k->nka; i++)
            if (k->ka[i].how == CC_KA_REDUCE) {
                char *el = node_code(p, k->el[k->ka[i].el].op->kid[0]);
                cc_printf(o, "    %s tamm_s%d_ = 0;  /* %s: this thread's part of its sum */\n", elem_type(&k->ka[i]),
                          k->ka[i].slot, el);
                free(el);
            }
    }
    if (k->y >= 0) emit_grid_loop(o, p, k->y, 'y');
    emit_grid_loop(o, p, k->x, 'x');
    const cc_node *B = k->loop[k->nloop - 1].body;
    int regs = 0;
    for (int i = 0; i < k->nka; i++) regs += k->ka[i].how == CC_KA_REGISTER;
    if (regs) {
        cc_line_self(o);
        for (int i = 0; i < k->nka; i++) {
            const cc_kacc *ka = &k->ka[i];
            if (ka->how != CC_KA_REGISTER) continue;
            char *el = node_code(p, k->el[ka->el].op->kid[0]);
            indent_to(o, p, B->b);
            if (ka->guard) {
                cc_printf(o, "const bool tamm_g%d_ = %s;  /* the loops around %s run */\n", i, ka->guard, el);
                indent_to(o, p, B->b);
                cc_printf(o, "%s tamm_r%d_ = tamm_g%d_ ? %s : 0;  /* %s: this thread's own, summed here in order */\n",
                          elem_type(ka), i, i, el, el);
            } else {
                cc_printf(o, "%s tamm_r%d_ = %s;  /* %s: this thread's own, summed here in order */\n", elem_type(ka), i, el, el);
            }
            free(el);
        }
    }
    int open = 0;
    for (int i = 0; i < k->nloop; i++) { /* the perfect nest's other loops, in each thread in order */
        const cc_kloop *l = &k->loop[i];
        if (i != k->x && i != k->y) {
            cc_line_to(o, cc_line_of(&u->src, l->f->b), u->src.name);
            indent_to(o, p, l->f->b);
            size_t e = l->f->kid[2]->e; /* the header, to its ')' */
            while (e < l->body->b && p->u->ast.text[e] != ')') e++;
            put_text(o, p, l->f->b, e + 1);
            cc_puts(o, " {");
            open++;
        }
        for (int j = 0; j < l->nlead; j++) { /* computed again in each thread (leads_ok) */
            cc_line_to(o, cc_line_of(&u->src, l->lead[j]->b), u->src.name);
            indent_to(o, p, l->lead[j]->b);
            put_text(o, p, l->lead[j]->b, cc_stmt_end(u, l->lead[j]));
        }
    }
    cc_line_to(o, cc_line_of(&u->src, B->b), u->src.name);
    indent_to(o, p, B->b);
    put_text(o, p, B->b, cc_stmt_end(u, B));
    cc_line_self(o);
    if (open) {
        indent_to(o, p, B->b);
        for (int i = 0; i < open; i++) cc_puts(o, "}");
        cc_puts(o, "  /* the loops in each thread */\n");
    }
    for (int i = 0; i < k->nka; i++) {
        const cc_kacc *ka = &k->ka[i];
        if (ka->how != CC_KA_REGISTER) continue;
        char *el = node_code(p, k->el[ka->el].op->kid[0]);
        indent_to(o, p, B->b);
        if (ka->guard) cc_printf(o, "if (tamm_g%d_) %s = tamm_r%d_;\n", i, el, i);
        else cc_printf(o, "%s = tamm_r%d_;\n", el, i);
        free(el);
    }
    cc_puts(o, k->y >= 0 ? "    }}\n" : "    }\n");
    if (k->nslot) {
        cc_puts(o, "    /* this block's part of each sum (tamm_cc_block_sum: shared memory, a fixed order), stored as\n"
                   "     * the block's partial sum */\n");
        for (int i = 0; i < k->nka; i++)
            if (k->ka[i].how == CC_KA_REDUCE)
                cc_printf(o, "    if (tamm_cc_block_sum<%d>(&tamm_s%d_)) tamm_p%d_[blockIdx.y * gridDim.x + blockIdx.x] = tamm_s%d_;\n",
                          nt, k->ka[i].slot, k->ka[i].slot, k->ka[i].slot);
    }
    cc_puts(o, "}\n\n");
    if (k->nslot) { /* the second kernel: the partial sums in index order, into the elements */
        cc_printf(o, "/* the partial sums of %s_kernel's blocks, added in index order into the elements (one block) */\n",
                  t->name);
        cc_printf(o, "static __global__ void __launch_bounds__(256) %s_sum(", t->name);
        n = emit_params(o, p, 1);
        cc_printf(o, "%sconst void *tamm_part_, unsigned tamm_np_)\n{\n", n ? ", " : "");
        emit_kernel_prelude(o, p, 1);
        emit_partials(o, p, "const ");
        for (int i = 0; i < k->nka; i++) {
            const cc_kacc *ka = &k->ka[i];
            if (ka->how != CC_KA_REDUCE) continue;
            char *el = node_code(p, k->el[ka->el].op->kid[0]);
            cc_printf(o, "    %s tamm_s%d_ = 0;\n", elem_type(ka), ka->slot);
            cc_printf(o, "    for (unsigned tamm_q_ = threadIdx.x; tamm_q_ < tamm_np_; tamm_q_ += 256) tamm_s%d_ += tamm_p%d_[tamm_q_];\n",
                      ka->slot, ka->slot);
            cc_printf(o, "    if (tamm_cc_block_sum<256>(&tamm_s%d_)) %s += tamm_s%d_;\n", ka->slot, el, ka->slot);
            free(el);
        }
        cc_puts(o, "}\n\n");
    }
    /* the host function */
    emit_host_prologue(o, t);
    char *in = cc_xstrdup("");
    for (int i = 0; i < k->nloop; i++)
        if (i != k->x && i != k->y) {
            char *s = cc_fmt("%s%s%s", in, *in ? ", " : "; in each thread: ", k->loop[i].name);
            free(in);
            in = s;
        }
    if (k->y >= 0)
        cc_printf(o, "    {   /* on the grid: %s (x) and %s (y)%s */\n", k->loop[k->x].name, k->loop[k->y].name, in);
    else
        cc_printf(o, "    {   /* on the grid: %s (x)%s */\n", k->loop[k->x].name, in);
    free(in);
    int nargs = 0;
    for (int i = 0; i < k->sc.nb; i++) nargs += k->sc.b[i].arg != NULL;
    if (nargs) { /* the called function's parameters, as the call in the task body computes them (or the values
                  * the body computes before its nest): every argument first (over the task's variables), then
                  * the parameters (which may hide them) */
        if (k->sc.fn) cc_printf(o, "        /* %s()'s parameters: the call's arguments */\n", k->sc.fname);
        else cc_puts(o, "        /* the values the body computes before its loop nest */\n");
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < k->sc.nb; i++) {
                const cc_kbind *b = &k->sc.b[i];
                if (!b->arg) continue;
                char *ty = cc_cu_decl(b->type, "");
                char *d = cc_cu_decl(b->type, pass ? b->name : "");
                if (!pass) {
                    cc_printf(o, "        %s tamm_h%d_ = (%s)(", ty, i, ty);
                    put_text(o, p, b->arg->b, b->arg->e);
                    cc_puts(o, ");\n");
                } else {
                    cc_printf(o, "        %s = tamm_h%d_;\n        (void)%s;\n", d, i, b->name);
                }
                free(d);
                free(ty);
            }
    }
    if (t->cuda_check || t->ncuda_alias)
        cc_puts(o, "        /* the kernel's checks held at submission (else the task runs its CPU variant) */\n");
    int li[2] = { k->x, k->y };
    for (int j = 0; j < (k->y >= 0 ? 2 : 1); j++) {
        const cc_kloop *l = &k->loop[li[j]];
        cc_printf(o, "        long long tamm_n%d_ = (long long)(", li[j]);
        put_text(o, p, l->ub->b, l->ub->e);
        cc_puts(o, ") - (long long)(");
        put_text(o, p, l->lb->b, l->lb->e);
        cc_printf(o, ")%s;\n", l->le ? " + 1" : "");
    }
    if (k->y >= 0) cc_printf(o, "        if (tamm_n%d_ > 0 && tamm_n%d_ > 0) {\n", k->x, k->y);
    else cc_printf(o, "        if (tamm_n%d_ > 0) {\n", k->x);
    cc_puts(o, "            cudaStream_t tamm_s_ = (cudaStream_t)tamm_cuda_stream();  /* NULL: the default stream */\n");
    const char *gx = k->nslot ? (k->y >= 0 ? "32" : "TAMM_CC_REDUCE_BLOCKS") : "TAMM_CC_GRID_X";
    const char *gy = k->nslot ? "32" : "TAMM_CC_GRID_YZ";
    if (k->y >= 0)
        cc_printf(o, "            dim3 tamm_blk_(%d, %d), tamm_grd_(tamm_cc_grid(tamm_n%d_, %d, %s), tamm_cc_grid(tamm_n%d_, %d, %s));\n",
                  k->bx, k->by, k->x, k->bx, gx, k->y, k->by, gy);
    else
        cc_printf(o, "            dim3 tamm_blk_(%d), tamm_grd_(tamm_cc_grid(tamm_n%d_, %d, %s));\n", k->bx, k->x, k->bx, gx);
    cc_puts(o, "            (void)cudaGetLastError();  /* an earlier error (recovered from) is not this launch's */\n");
    if (k->nslot) {
        /* the partial sums: the task's scratch memory (within TAMM_CUDA_MEMORY_LIMIT, freed in stream order
         * when the task ends); NULL: no room, and the task's error says so */
        cc_printf(o, "            unsigned tamm_np_ = tamm_grd_.x * tamm_grd_.y;  /* partial sums: one per block and sum */\n"
                     "            void *tamm_part_ = tamm_cuda_scratch((size_t)%d * tamm_np_);\n"
                     "            cudaError_t tamm_e_ = cudaSuccess;\n"
                     "            if (tamm_part_) {\n", 8 * k->nslot);
        cc_printf(o, "                TAMM_CUDA_LAUNCH(%s_kernel, tamm_grd_, tamm_blk_, tamm_s_", t->name);
        emit_params(o, p, 0);
        cc_puts(o, ", tamm_part_, tamm_np_);\n                tamm_e_ = cudaGetLastError();\n"
                   "                if (tamm_e_ == cudaSuccess) {\n");
        cc_printf(o, "                    TAMM_CUDA_LAUNCH(%s_sum, dim3(1), dim3(256), tamm_s_", t->name);
        emit_params(o, p, 0);
        cc_puts(o, ", (const void *)tamm_part_, tamm_np_);\n                    tamm_e_ = cudaGetLastError();\n"
                   "                }\n            }\n");
    } else {
        cc_printf(o, "            TAMM_CUDA_LAUNCH(%s_kernel, tamm_grd_, tamm_blk_, tamm_s_", t->name);
        emit_params(o, p, 0);
        cc_puts(o, ");\n            cudaError_t tamm_e_ = cudaGetLastError();\n");
    }
    /* a failed launch is the task's error (docs/errors.md, TAMM_EDEVICE), not a line on stderr */
    cc_puts(o, "            if (tamm_e_ != cudaSuccess) {\n"
               "                char tamm_m_[256];\n"
               "                snprintf(tamm_m_, sizeof tamm_m_, \"kernel launch failed: %s\", cudaGetErrorString(tamm_e_));\n"
               "                (void)tamm_task_error(tamm_ctx_, TAMM_EDEVICE, tamm_m_);\n"
               "            }\n        }\n    }\n");
    emit_host_epilogue(o, t);
}

/* ---------------------------------------------------------------- the file */
/* The user's #define lines, in the order the preprocessor met them: the main file's, and those of
 * the headers it includes that are not system headers (the code copied into the kernels may use
 * any of them; the .cu does not include the user's headers, which may not be C++).  Macros of
 * tamm.h (TAMM_, tamm_) and reserved names (__) are left to the headers the .cu includes. */
static void emit_define(cc_out *o, const char *nm, const char *txt, size_t b, size_t len)
{
    size_t x = b; /* the extent may stop before the last token of the body: take the rest of the line */
    while (x < len && txt[x] != '\n') {
        if (txt[x] == '\\' && x + 1 < len && txt[x + 1] == '\n') x++;
        x++;
    }
    cc_printf(o, "#undef %s\n#define ", nm);
    cc_putn(o, txt + b, x - b);
    cc_puts(o, "\n");
}

static enum CXChildVisitResult macro_visit(CXCursor c, CXCursor parent, CXClientData d)
{
    (void)parent;
    void **a = d;
    cc_unit *u = a[0];
    cc_out *o = a[1];
    if (clang_getCursorKind(c) != CXCursor_MacroDefinition || clang_Cursor_isMacroBuiltin(c)) return CXChildVisit_Continue;
    size_t b, e;
    char *nm = cc_spelling(c);
    if (cc_extent(&u->ast, c, &b, &e)) {
        if (e > b) emit_define(o, nm, u->ast.text, b, u->ast.len);
    } else if (strncmp(nm, "TAMM_", 5) && strncmp(nm, "tamm_", 5) && strncmp(nm, "__", 2)) {
        CXSourceLocation l = clang_getRangeStart(clang_getCursorExtent(c));
        CXFile f;
        unsigned off;
        size_t len;
        clang_getFileLocation(l, &f, NULL, NULL, &off);
        const char *txt = f && !clang_Location_isInSystemHeader(l) ? clang_getFileContents(u->ast.tu, f, &len) : NULL;
        if (txt && off < len) emit_define(o, nm, txt, off, len);
    }
    free(nm);
    return CXChildVisit_Continue;
}

int cc_emit_cuda(cc_unit *u, cc_out *o)
{
    int n = 0, nblas = 0;
    cc_cuda_plan *ps = cc_xcalloc((size_t)(u->ntasks ? u->ntasks : 1), sizeof *ps);
    for (int i = 0; i < u->ntasks; i++) {
        cc_task *t = u->tasks[i];
        if (!t->has_cuda) continue;
        if (cc_cuda_plan_task(u, t, &ps[i])) n++, nblas += ps[i].form == CC_CUDA_BLAS;
        else t->has_cuda = 0; /* cannot happen: the same analysis decided */
    }
    if (!n) {
        for (int i = 0; i < u->ntasks; i++) cc_cuda_plan_free(&ps[i]);
        free(ps);
        return 0;
    }
    cc_printf(o, "/* Generated by tammcc from %s: do not edit.  The CUDA variants of its tasks\n"
                 " * (tamm's docs/language.md, \"Variants: CPU and CUDA\"); #line directives point back at %s. */\n", u->src.name, u->src.name);
    /* nvcc: the CUDA runtime; a host C++ compiler: the emulation that runs the kernels on the host */
    cc_puts(o, "#ifdef __CUDACC__\n#include <cuda_runtime.h>\n#else\n#include <tamm_cuda_emu.h>\n#endif\n"
               "#include <math.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <tamm_cc.h>\n");
    cc_puts(o, nblas ? "#include <tamm_blas_cuda.h>\n\n" : "\n");
    cc_puts(o, "/* the #define lines of the source file and of its own (non-system) headers */\n");
    void *a[2] = { u, o };
    clang_visitChildren(clang_getTranslationUnitCursor(u->ast.tu), macro_visit, a);
    /* file-scope enums the variants use, in source order */
    size_t (*en)[2] = NULL;
    int nen = 0;
    size_t en_cap = 0;
    for (int i = 0; i < u->ntasks; i++)
        for (int k = 0; k < ps[i].nen; k++) {
            int seen = 0;
            for (int j = 0; j < nen; j++) seen |= en[j][0] == ps[i].en[k][0];
            if (seen) continue;
            CC_GROW(en, en_cap, nen + 1);
            en[nen][0] = ps[i].en[k][0];
            en[nen][1] = ps[i].en[k][1];
            nen++;
        }
    for (int i = 0; i < nen; i++)
        for (int j = i + 1; j < nen; j++)
            if (en[j][0] < en[i][0]) {
                size_t b = en[i][0], e = en[i][1];
                en[i][0] = en[j][0]; en[i][1] = en[j][1];
                en[j][0] = b; en[j][1] = e;
            }
    if (nen) cc_puts(o, "\n/* enums of the source file */\n");
    for (int i = 0; i < nen; i++) {
        cc_line_to(o, cc_line_of(&u->src, en[i][0]), u->src.name);
        cc_putn(o, u->ast.text + en[i][0], en[i][1] - en[i][0]);
        cc_puts(o, ";");
        cc_line_self(o);
    }
    free(en);
    /* declarations of the TAMM_CUDA_VARIANT functions, once each */
    char **decls = NULL;
    int ndecls = 0;
    size_t decls_cap = 0;
    for (int i = 0; i < u->ntasks; i++) {
        if (ps[i].form != CC_CUDA_CALL) continue;
        int seen = 0;
        for (int j = 0; j < ndecls; j++) seen |= !strcmp(decls[j], ps[i].call.gdecl);
        if (seen) continue;
        CC_GROW(decls, decls_cap, ndecls + 1);
        decls[ndecls++] = ps[i].call.gdecl;
    }
    if (ndecls) cc_puts(o, "\n/* CUDA variants named by TAMM_CUDA_VARIANT (host functions that launch on tamm_cuda_stream()) */\n");
    for (int i = 0; i < ndecls; i++) cc_printf(o, "%s\n", decls[i]);
    free(decls);
    /* the file's functions that kernels call, once each, callees first (cuda_devfn.h) */
    size_t *devs = NULL;
    int ndevs = 0;
    size_t devs_cap = 0;
    for (int i = 0; i < u->ntasks; i++)
        for (int k = 0; k < ps[i].ndev; k++) {
            int seen = 0;
            for (int j = 0; j < ndevs; j++) seen |= devs[j] == ps[i].dev[k]->b;
            if (seen) continue;
            if (!ndevs) cc_puts(o, "\n/* functions of the source file that the kernels call */\n");
            CC_GROW(devs, devs_cap, ndevs + 1);
            devs[ndevs++] = ps[i].dev[k]->b;
            cc_cu_devfn_emit(o, &ps[i], k, put_text);
        }
    free(devs);
    for (int i = 0; i < u->ntasks; i++) {
        cc_cuda_plan *p = &ps[i];
        cc_task *t = u->tasks[i];
        if (p->form == CC_CUDA_NONE) continue;
        cc_printf(o, "\n/* ---- task %s: %s:%u, in %s() ---- */\n", t->name, u->src.name, t->line, t->fname);
        /* the macros of the enclosing function in effect at the task (emit_c.c, "macros"), each #define
         * after an #undef: the file's #define lines above hold the last definition of every macro */
        cc_emit_macro_save(o, u, t->fn->b, t->e);
        if (cc_emit_macros(o, u, t->fn->b, t->stmt->b, 1)) cc_line_self(o);
        cc_emit_args_struct(o, t, cc_cu_decl, 0); /* the .c's leading fields (emit_c.c) */
        switch (p->form) { /* one printer per form */
        case CC_CUDA_CALL: emit_call(o, p); break;
        case CC_CUDA_KERNEL: emit_kernel(o, p); break;
        case CC_CUDA_BLAS:
            emit_host_prologue(o, t);
            cc_blas_emit(o, u, t, p->blas);
            emit_host_epilogue(o, t);
            break;
        case CC_CUDA_NONE: break;
        }
        cc_emit_macro_restore(o, u, t->fn->b, t->e, t->stmt->b);
    }
    for (int i = 0; i < u->ntasks; i++) cc_cuda_plan_free(&ps[i]);
    free(ps);
    return 1;
}
