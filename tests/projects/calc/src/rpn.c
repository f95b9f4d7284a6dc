/* rpn.c: tokenizing loop with strtod, a switch over operators, an explicit stack. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include "calc/rpn.h"

static const char *const names[] = {"ok", "underflow", "overflow", "bad token", "leftover"};

const char *rpn_status_name(enum rpn_status s)
{
    return names[s];
}

enum rpn_status rpn_eval(const char *expr, double *result)
{
    double st[RPN_STACK];
    int sp = 0;
    const char *p = expr;
    while (*p) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1]))) {
            char *end;
            if (sp == RPN_STACK)
                return RPN_OVERFLOW;
            st[sp++] = strtod(p, &end);
            p = end;
            continue;
        }
        char op = *p++;
        if (op == 'n') { /* unary negate */
            if (sp < 1)
                return RPN_UNDERFLOW;
            st[sp - 1] = -st[sp - 1];
            continue;
        }
        if (sp < 2)
            return RPN_UNDERFLOW;
        double b = st[--sp], a = st[--sp];
        switch (op) {
        case '+': st[sp++] = a + b; break;
        case '-': st[sp++] = a - b; break;
        case '*': st[sp++] = a * b; break;
        case '/': st[sp++] = a / b; break;
        case '^': st[sp++] = pow(a, b); break;
        default:
            return RPN_BAD_TOKEN;
        }
    }
    if (sp != 1)
        return sp == 0 ? RPN_UNDERFLOW : RPN_LEFTOVER;
    *result = st[0];
    return RPN_OK;
}
