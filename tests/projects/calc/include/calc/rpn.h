/* rpn.h: a reverse-Polish-notation evaluator (a stack machine over doubles). */
#ifndef CALC_RPN_H
#define CALC_RPN_H

#define RPN_STACK 32

enum rpn_status { RPN_OK = 0, RPN_UNDERFLOW, RPN_OVERFLOW, RPN_BAD_TOKEN, RPN_LEFTOVER };

enum rpn_status rpn_eval(const char *expr, double *result);
const char *rpn_status_name(enum rpn_status s);

#endif
