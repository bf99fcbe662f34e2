! A Fortran program using a model library, for inference-lib.test:
!   predict WEIGHTS_DIR INPUTS.f32 N OUT_PREFIX
! reads N samples of raw float32, predicts them in one call and writes
! output k to OUT_PREFIX<k>.f32. MODEL_MODULE names the module dxc wrote.
program predict
  use, intrinsic :: iso_c_binding
  use MODEL_MODULE
  implicit none
  character(len=4096) :: dir, inputs, prefix, arg, path
  integer(c_int64_t) :: n, k_floats
  integer(c_int) :: rc, k
  type(c_ptr) :: model
  real(c_float), allocatable, target :: x(:, :)
  type(c_ptr), allocatable, target :: ptrs(:)
  type :: buffer
    real(c_float), allocatable :: v(:)
  end type
  type(buffer), allocatable, target :: outs(:)

  call get_command_argument(1, dir)
  call get_command_argument(2, inputs)
  call get_command_argument(3, arg)
  read (arg, *) n
  call get_command_argument(4, prefix)

  rc = dx_model_open(trim(dir) // c_null_char, 0_c_int64_t, model)
  if (rc /= dx_ok) then
    print '(a)', dx_model_error(c_null_ptr)
    stop 1
  end if
  allocate(x(input_floats, n))
  open (10, file=trim(inputs), access='stream', form='unformatted', status='old')
  read (10) x
  close (10)
  allocate(outs(num_outputs), ptrs(num_outputs))
  do k = 1, num_outputs
    k_floats = dx_model_output_floats(model, k - 1)
    allocate(outs(k)%v(k_floats * n))
    ptrs(k) = c_loc(outs(k)%v)
  end do
  rc = dx_model_predict(model, c_loc(x), n, c_loc(ptrs))
  if (rc /= dx_ok) then
    print '(a)', dx_model_error(model)
    stop 1
  end if
  do k = 1, num_outputs
    write (path, '(a, i0, a)') trim(prefix), k - 1, '.f32'
    open (11, file=trim(path), access='stream', form='unformatted', status='replace')
    write (11) outs(k)%v
    close (11)
  end do
  print '(a, i0, a, i0, a)', 'fortran: ', n, ' samples, ', num_outputs, ' outputs'
  call dx_model_close(model)
end program
