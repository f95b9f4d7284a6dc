#include <stdio.h>
#include <stdlib.h>
/* The driver of llvm_kernels.c: tests/test_llvm_frontend.py builds it with the kernels as gcc
   compiles them and as the LLVM front end lifts them from clang -O1. */
void matvec_t(int n, double A[n][n], double B[n][n], double *x, double *y);
double norm(int n, const double *x);
void clip(int n, float *a, float lo, float hi);
void jacobi(int steps, int n, double A[n][n], double B[n][n]);
void gemm(int n, int m, int k, double alpha, double C[n][m], double A[n][k], double B[k][m]);
long strided(int n, int *v);
int main(void) {
  int n = 300;
  double (*A)[n] = malloc(sizeof(double) * n * n), (*B)[n] = malloc(sizeof(double) * n * n);
  double (*C)[n] = malloc(sizeof(double) * n * n);
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  float *f = malloc(sizeof(float) * n); int *v = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) { x[i] = (i % 17) * 0.25; f[i] = (i % 23) - 11.0f; v[i] = i * 37 % 101 - 50;
    for (int j = 0; j < n; j++) { A[i][j] = ((i * 7 + j * 13) % 29) * 0.125; B[i][j] = 0; C[i][j] = (i + j) % 5; } }
  matvec_t(n, A, B, x, y);
  double s = 0; for (int i = 0; i < n; i++) s += y[i] + B[i][(i * 7) % n];
  printf("matvec %.10g norm %.10g\n", s, norm(n, x));
  clip(n, f, -3.5f, 4.25f); float fs = 0; for (int i = 0; i < n; i++) fs += f[i] * (i % 3);
  printf("clip %.6g\n", fs);
  jacobi(5, n, A, B); s = 0; for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) s += A[i][j] * ((i + j) % 3);
  printf("jacobi %.10g\n", s);
  gemm(n, n, n, 0.5, C, A, B); s = 0; for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) s += C[i][j] * ((i * j) % 7);
  printf("gemm %.10g\n", s);
  printf("strided %ld\n", strided(n, v));
  return 0;
}
