! Two kernels as Fortran programs write them, over explicit-shape dummy arrays: an explicit
! heat-diffusion stencil ping-ponged between two arrays, and a matrix product in the column
! order (j, k, i). Called from C by tests/test_llvm_cxx.py (no Fortran runtime needed).
module kernels
contains
  subroutine heat(u, v, n, steps)
    integer, intent(in) :: n, steps
    real(8), intent(inout) :: u(n, n), v(n, n)
    integer :: i, j, t
    do t = 1, steps
      do j = 2, n - 1
        do i = 2, n - 1
          v(i, j) = u(i, j) + 0.2d0 * (u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1) - 4.0d0 * u(i, j))
        end do
      end do
      do j = 2, n - 1
        do i = 2, n - 1
          u(i, j) = v(i, j)
        end do
      end do
    end do
  end subroutine

  subroutine product(a, b, c, n)
    integer, intent(in) :: n
    real(8), intent(in) :: a(n, n), b(n, n)
    real(8), intent(inout) :: c(n, n)
    integer :: i, j, k
    do j = 1, n
      do k = 1, n
        do i = 1, n
          c(i, j) = c(i, j) + a(i, k) * b(k, j)
        end do
      end do
    end do
  end subroutine
end module
