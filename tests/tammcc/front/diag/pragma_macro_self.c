/* A macro holding '_Pragma("tamm ...")' that names itself other than as a call
 * NAME(...): tammcc cannot expand it in place (its expansion names it again),
 * so the directive is refused, naming the macro and its line. */
#include <tamm.h>

void (*work)(tamm_tensor *);
#define work _Pragma("tamm task") work

void f(tamm_tensor *A)
{
    work(A);
}
// EXPECT: pragma_macro_self.c:11:5: error: macro 'work' holds '_Pragma("tamm task")', which tammcc cannot expand here: a macro that names itself (other than as a call 'NAME(...)') is not expanded; write the directive outside the macro
