/*
 * src/prec/prec_op.h - the operations of the expression graph and the
 * rounding directions of formats: one definition for the graph
 * (prec_internal.h), the MPFR engines and the double-interval box engine that
 * runs on the CPU and on the GPU (prec_box.h). C and CUDA; includes nothing.
 */
#ifndef HAZE_PREC_OP_H
#define HAZE_PREC_OP_H

enum {
    OP_CONST,
    OP_VAR,
    OP_NEG,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_FMA,
    OP_ABS,
    OP_SQRT,
    OP_EXP,
    OP_LOG,
    OP_EXP2,
    OP_LOG2,
    OP_RND
};

/* Rounding directions: to nearest (ties to even, ties away), toward zero,
 * away from zero, up, down. */
enum { DIR_NE, DIR_NA, DIR_ZR, DIR_AW, DIR_UP, DIR_DN };

#endif
