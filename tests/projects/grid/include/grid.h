#ifndef GRID_H
#define GRID_H
#define N 160

void init(double A[N][N], double B[N][N], double G[N][N]);
void matmul(int n, double C[N][N], double A[N][N], double B[N][N]);
void smooth(int steps, int n, double G[N][N], double H[N][N]);

#endif
