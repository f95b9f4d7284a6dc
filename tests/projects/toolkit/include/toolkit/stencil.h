/* stencil.h - explicit relaxation schemes on 1-D and 2-D grids. */
#ifndef TOOLKIT_STENCIL_H
#define TOOLKIT_STENCIL_H

/* steps of u_i <- u_i + r (u_{i-1} - 2 u_i + u_{i+1}); tmp has n doubles; the ends stay fixed. */
void tk_heat_1d(int n, int steps, double r, double *u, double *tmp);
/* Jacobi sweeps of the 5-point Laplacian on an n x n grid with fixed boundary; returns nothing,
 * a and b are both n * n, the result is in a. */
void tk_jacobi_2d(int n, int steps, double *a, double *b);
/* In-place Gauss-Seidel sweeps (each point uses the already-updated neighbours). */
void tk_gauss_seidel_2d(int n, int steps, double *a);
/* Max |a - b| over the interior of two n x n grids. */
double tk_grid_residual(int n, const double *a, const double *b);
/* Sum of squares of the discrete Laplacian over the interior. */
double tk_grid_laplacian_norm(int n, const double *a);

#endif
