! Every collective autocoll intercepts, called from Fortran through one MPI binding chosen at
! compile time: -DBIND_MPIFH (include 'mpif.h'), -DBIND_MPI (use mpi), -DBIND_F08 (use mpi_f08).
! Integer data (and one double precision MPI_MAX of exact values), so that every result is known
! in advance: each is compared bit for bit with values computed here. In-place variants of every
! collective that has one, and MPI_BOTTOM with an absolute-address datatype (bcast).
! Prints "FAIL rank R: what" per wrong result or error code, "calls <collective> N" (calls
! made per rank, for the driver to compare with the library's finalize summary) and finally
! "fortran collectives: all ok" or "fortran collectives: N failures", and after MPI_FINALIZE
! "finalize ok" (rank 0). MPI_INIT_THREAD instead of MPI_INIT when AC_FTEST_INIT_THREAD is set.
#if defined(BIND_F08)
#define COMM_T type(MPI_Comm)
#define TYPE_T type(MPI_Datatype)
#else
#define COMM_T integer
#define TYPE_T integer
#endif
program colls
#if defined(BIND_F08)
  use mpi_f08
#elif defined(BIND_MPI)
  use mpi
#endif
  implicit none
#if defined(BIND_MPIFH)
  include 'mpif.h'
#endif
  integer, parameter :: n = 3
  integer, parameter :: AG = 1, AGV = 2, A2A = 3, A2AV = 4, BC = 5, RED = 6, ARED = 7, &
                        RS = 8, RSB = 9, GA = 10, SC = 11, BAR = 12
  character(len=20), parameter :: names(12) = [character(len=20) :: 'allgather', 'allgatherv', &
       'alltoall', 'alltoallv', 'bcast', 'reduce', 'allreduce', 'reduce_scatter', &
       'reduce_scatter_block', 'gather', 'scatter', 'barrier']
  integer :: calls(12)
  integer :: ierr, me, p, i, j, k, t, root, nfail, total, tot_fail, provided
  integer :: dummy(1)
  COMM_T :: comm
  TYPE_T :: abstype
  integer(kind=MPI_ADDRESS_KIND) :: addr
  integer, allocatable :: sb(:), rb(:), ex(:), cnt(:), dsp(:)
  integer :: x(n)
  double precision :: dsb(n), drb(n), dex(n)

  calls = 0
  nfail = 0
  me = -1
  call get_environment_variable('AC_FTEST_INIT_THREAD', length=t)
  if (t > 0) then
    call MPI_Init_thread(MPI_THREAD_FUNNELED, provided, ierr)
    call ok_err('init_thread')
  else
    call MPI_Init(ierr)
    call ok_err('init')
  end if
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, me, ierr)
  call MPI_Comm_size(comm, p, ierr)
  allocate (cnt(0:p - 1), dsp(0:p - 1))

  ! ---- allgather: block j holds j*1000 + i
  allocate (sb(n), rb(p*n), ex(p*n))
  sb = [(me*1000 + i, i = 1, n)]
  ex = [((j*1000 + i, i = 1, n), j = 0, p - 1)]
  rb = -1
  call MPI_Allgather(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, ierr)
  call done(AG, 'allgather', rb, ex)
  rb = -1
  rb(me*n + 1:me*n + n) = sb
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INTEGER, comm, ierr)
  call done(AG, 'allgather in place', rb, ex)
  deallocate (sb, rb, ex)

  ! ---- allgatherv: rank j sends j+1 elements j*1000 + i
  do j = 0, p - 1
    cnt(j) = j + 1
  end do
  call prefix(cnt, dsp)
  total = sum(cnt)
  allocate (sb(me + 1), rb(total), ex(total))
  sb = [(me*1000 + i, i = 1, me + 1)]
  ex = [((j*1000 + i, i = 1, j + 1), j = 0, p - 1)]
  rb = -1
  call MPI_Allgatherv(sb, me + 1, MPI_INTEGER, rb, cnt, dsp, MPI_INTEGER, comm, ierr)
  call done(AGV, 'allgatherv', rb, ex)
  rb = -1
  rb(dsp(me) + 1:dsp(me) + me + 1) = sb
  call MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, cnt, dsp, MPI_INTEGER, comm, ierr)
  call done(AGV, 'allgatherv in place', rb, ex)
  deallocate (sb, rb, ex)

  ! ---- alltoall: block j sent by me is me*1000 + j*10 + i
  allocate (sb(p*n), rb(p*n), ex(p*n))
  sb = [((me*1000 + j*10 + i, i = 1, n), j = 0, p - 1)]
  ex = [((j*1000 + me*10 + i, i = 1, n), j = 0, p - 1)]
  rb = -1
  call MPI_Alltoall(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, comm, ierr)
  call done(A2A, 'alltoall', rb, ex)
  rb = sb
  call MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INTEGER, comm, ierr)
  call done(A2A, 'alltoall in place', rb, ex)
  deallocate (sb, rb, ex)

  ! ---- alltoallv: mod(me+j, 3) + 1 elements between me and j (symmetric, as in place needs)
  do j = 0, p - 1
    cnt(j) = mod(me + j, 3) + 1
  end do
  call prefix(cnt, dsp)
  total = sum(cnt)
  allocate (sb(total), rb(total), ex(total))
  sb = [((me*1000 + j*10 + k, k = 1, cnt(j)), j = 0, p - 1)]
  ex = [((j*1000 + me*10 + k, k = 1, cnt(j)), j = 0, p - 1)]
  rb = -1
  call MPI_Alltoallv(sb, cnt, dsp, MPI_INTEGER, rb, cnt, dsp, MPI_INTEGER, comm, ierr)
  call done(A2AV, 'alltoallv', rb, ex)
  rb = sb
  call MPI_Alltoallv(MPI_IN_PLACE, cnt, dsp, MPI_DATATYPE_NULL, rb, cnt, dsp, MPI_INTEGER, &
                     comm, ierr)
  call done(A2AV, 'alltoallv in place', rb, ex)
  deallocate (sb, rb, ex)

  ! ---- bcast from the last rank, then through MPI_BOTTOM and an absolute-address datatype
  root = p - 1
  allocate (rb(n), ex(n))
  ex = [(i*7 + root, i = 1, n)]
  rb = -1
  if (me == root) rb = ex
  call MPI_Bcast(rb, n, MPI_INTEGER, root, comm, ierr)
  call done(BC, 'bcast', rb, ex)
  x = -1
  if (me == root) x = ex + 1
  call MPI_Get_address(x, addr, ierr)
  call MPI_Type_create_struct(1, [n], [addr], [MPI_INTEGER], abstype, ierr)
  call MPI_Type_commit(abstype, ierr)
  call MPI_Bcast(MPI_BOTTOM, 1, abstype, root, comm, ierr)
  call done(BC, 'bcast MPI_BOTTOM', x, ex + 1)
  call MPI_Type_free(abstype, ierr)
  deallocate (rb, ex)

  ! ---- reduce (sum) to rank 1 mod p: me*100 + i summed
  root = mod(1, p)
  allocate (sb(n), rb(n), ex(n))
  sb = [(me*100 + i, i = 1, n)]
  ex = [(100*(p*(p - 1)/2) + p*i, i = 1, n)]
  rb = -1
  call MPI_Reduce(sb, rb, n, MPI_INTEGER, MPI_SUM, root, comm, ierr)
  if (me /= root) rb = ex
  call done(RED, 'reduce', rb, ex)
  if (me == root) then
    rb = sb
    call MPI_Reduce(MPI_IN_PLACE, rb, n, MPI_INTEGER, MPI_SUM, root, comm, ierr)
  else
    rb = ex
    call MPI_Reduce(sb, dummy, n, MPI_INTEGER, MPI_SUM, root, comm, ierr)
  end if
  call done(RED, 'reduce in place', rb, ex)

  ! ---- allreduce (sum; the same data), and MPI_MAX of double precision values
  rb = -1
  call MPI_Allreduce(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call done(ARED, 'allreduce', rb, ex)
  rb = sb
  call MPI_Allreduce(MPI_IN_PLACE, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call done(ARED, 'allreduce in place', rb, ex)
  dsb = [(me + 0.25d0*i, i = 1, n)]
  dex = [((p - 1) + 0.25d0*i, i = 1, n)]
  drb = -1
  call MPI_Allreduce(dsb, drb, n, MPI_DOUBLE_PRECISION, MPI_MAX, comm, ierr)
  call done(ARED, 'allreduce double max', transfer(drb, [0]), transfer(dex, [0]))
  deallocate (sb, rb, ex)

  ! ---- reduce_scatter: rank j gets j+1 elements; element t of the vector is sum(r*100 + t)
  do j = 0, p - 1
    cnt(j) = j + 1
  end do
  call prefix(cnt, dsp)
  total = sum(cnt)
  allocate (sb(total), rb(total), ex(me + 1))
  sb = [(me*100 + t, t = 1, total)]
  ex = [(100*(p*(p - 1)/2) + p*(dsp(me) + i), i = 1, me + 1)]
  rb = -1
  call MPI_Reduce_scatter(sb, rb, cnt, MPI_INTEGER, MPI_SUM, comm, ierr)
  call done(RS, 'reduce_scatter', rb(1:me + 1), ex)
  rb = sb
  call MPI_Reduce_scatter(MPI_IN_PLACE, rb, cnt, MPI_INTEGER, MPI_SUM, comm, ierr)
  call done(RS, 'reduce_scatter in place', rb(1:me + 1), ex)
  deallocate (sb, rb, ex)

  ! ---- reduce_scatter_block: n elements per rank
  allocate (sb(p*n), rb(p*n), ex(n))
  sb = [(me*100 + t, t = 1, p*n)]
  ex = [(100*(p*(p - 1)/2) + p*(me*n + i), i = 1, n)]
  rb = -1
  call MPI_Reduce_scatter_block(sb, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call done(RSB, 'reduce_scatter_block', rb(1:n), ex)
  rb = sb
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, rb, n, MPI_INTEGER, MPI_SUM, comm, ierr)
  call done(RSB, 'reduce_scatter_block in place', rb(1:n), ex)
  deallocate (sb, rb, ex)

  ! ---- gather to rank 0
  root = 0
  allocate (sb(n), rb(p*n), ex(p*n))
  sb = [(me*1000 + i, i = 1, n)]
  ex = [((j*1000 + i, i = 1, n), j = 0, p - 1)]
  rb = -1
  call MPI_Gather(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, root, comm, ierr)
  if (me /= root) rb = ex
  call done(GA, 'gather', rb, ex)
  if (me == root) then
    rb = -1
    rb(1:n) = sb
    call MPI_Gather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, rb, n, MPI_INTEGER, root, comm, ierr)
  else
    rb = ex
    call MPI_Gather(sb, n, MPI_INTEGER, dummy, 0, MPI_DATATYPE_NULL, root, comm, ierr)
  end if
  call done(GA, 'gather in place', rb, ex)
  deallocate (sb, rb, ex)

  ! ---- scatter from the last rank
  root = p - 1
  allocate (sb(p*n), rb(n), ex(n))
  sb = [((j*1000 + i, i = 1, n), j = 0, p - 1)]
  ex = [(me*1000 + i, i = 1, n)]
  rb = -1
  call MPI_Scatter(sb, n, MPI_INTEGER, rb, n, MPI_INTEGER, root, comm, ierr)
  call done(SC, 'scatter', rb, ex)
  if (me == root) then
    call MPI_Scatter(sb, n, MPI_INTEGER, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, root, comm, ierr)
    rb = sb(me*n + 1:me*n + n)
  else
    rb = -1
    call MPI_Scatter(dummy, 0, MPI_DATATYPE_NULL, rb, n, MPI_INTEGER, root, comm, ierr)
  end if
  call done(SC, 'scatter in place', rb, ex)
  deallocate (sb, rb, ex)

  ! ---- barrier
  call MPI_Barrier(comm, ierr)
  call done(BAR, 'barrier', [0], [0])
  call MPI_Barrier(comm, ierr)
  call done(BAR, 'barrier', [0], [0])

  ! ---- failures of every rank (one more allreduce)
  call MPI_Allreduce(nfail, tot_fail, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  calls(ARED) = calls(ARED) + 1
  if (me == 0) then
    do j = 1, 12
      write (*, '(a,1x,a,1x,i0)') 'calls', trim(names(j)), calls(j)
    end do
    if (tot_fail == 0 .and. ierr == MPI_SUCCESS) then
      write (*, '(a)') 'fortran collectives: all ok'
    else
      write (*, '(a,i0,a)') 'fortran collectives: ', tot_fail, ' failures'
    end if
  end if
  call MPI_Finalize(ierr)
  call ok_err('finalize')
  if (me == 0 .and. ierr == MPI_SUCCESS) write (*, '(a)') 'finalize ok'

contains

  ! One call of collective c done: its error code and its result.
  subroutine done(c, what, got, want)
    integer, intent(in) :: c
    character(*), intent(in) :: what
    integer, intent(in) :: got(:), want(:)
    calls(c) = calls(c) + 1
    call ok_err(what)
    if (size(got) /= size(want)) then
      nfail = nfail + 1
      write (*, '(a,i0,3a)') 'FAIL rank ', me, ': ', what, ' (sizes)'
    else if (any(got /= want)) then
      nfail = nfail + 1
      write (*, '(a,i0,3a)') 'FAIL rank ', me, ': ', what, ' (values)'
      write (*, '(a,*(1x,i0))') '  got ', got
      write (*, '(a,*(1x,i0))') '  want', want
    end if
  end subroutine done

  subroutine ok_err(what)
    character(*), intent(in) :: what
    if (ierr /= MPI_SUCCESS) then
      nfail = nfail + 1
      write (*, '(a,i0,3a,i0)') 'FAIL rank ', me, ': ', what, ': ierror ', ierr
    end if
  end subroutine ok_err

  subroutine prefix(c, d)
    integer, intent(in) :: c(0:)
    integer, intent(out) :: d(0:)
    integer :: q
    d(0) = 0
    do q = 1, size(c) - 1
      d(q) = d(q - 1) + c(q - 1)
    end do
  end subroutine prefix

end program colls
