! The point-to-point calls autocoll traces, called from Fortran through one MPI binding chosen at
! compile time (-DBIND_MPIFH, -DBIND_MPI, -DBIND_F08), on a ring (right = me + 1, left = me - 1
! mod p), in thirteen steps whose tags are the step numbers (docs/fortran.md; the trace is
! checked by p2p_check.c, which lists the records every step leaves):
!  1 Send / Recv; 2 Irecv x 2, Isend x 2, Waitall with statuses; 3 Sendrecv; 4 Sendrecv_replace;
!  5 Isend, Probe (MPI_ANY_SOURCE), Recv from the probed source, Wait; 6 Isend, Iprobe loop,
!  Recv, Test loop; 7 (tag 8) Recv_init and Send_init, 3 x {Startall, Waitall}, then Start x 2,
!  Wait x 2 (with and without a status), Start x 2 and a Testsome loop, Request_free x 2; 8 (tags 9, 10) Irecv x 2, Isend x 2,
!  Waitany then Waitsome until none is left; 9 (tags 11, 12) Irecv + Issend completed by
!  Testany, Irecv + Isend completed by Testsome; 10 (tags 13, 14) Isend, Mprobe, Mrecv, Wait;
!  Isend, Improbe loop, Imrecv, Testall loop; 11 (tag 15) Sendrecv of MPI_BOTTOM with
!  absolute-address datatypes; 12 (tag 16) Irecv, Ssend, Wait; 13 (tags 17, 18) Irecv x 2,
!  Barrier, Rsend, Irsend, Waitall.
! Polling loops start after an MPI_Barrier (not a point-to-point record), so that they stay short
! and the trace ring never overflows. Loops end on counts of completions, not on MPI_UNDEFINED
! (MPICH 4.0's mpif.h MPI_TESTANY returns MPI_UNDEFINED + 1 once every request is inactive).
! Every value received, status (source, tag, count), index, flag and request handle after
! completion (MPI_REQUEST_NULL, or still valid for a persistent request) is compared with what
! the ring implies: "FAIL rank R: what" per mismatch, then "fortran p2p: all ok" or
! "fortran p2p: N failures". "result R: ..." lists the deterministic values received (for the
! driver to compare runs with and without tracing).
#if defined(BIND_F08)
#define COMM_T type(MPI_Comm)
#define TYPE_T type(MPI_Datatype)
#define REQ_T type(MPI_Request)
#define MSG_T type(MPI_Message)
#define STAT_T type(MPI_Status)
#define SRC(s) s%MPI_SOURCE
#define TAG(s) s%MPI_TAG
#define ASRC(s, k) s(k)%MPI_SOURCE
#define ATAG(s, k) s(k)%MPI_TAG
#define ASTAT(s, k) s(k)
#else
#define COMM_T integer
#define TYPE_T integer
#define REQ_T integer
#define MSG_T integer
#define STAT_T integer
#define SRC(s) s(MPI_SOURCE)
#define TAG(s) s(MPI_TAG)
#define ASRC(s, k) s(MPI_SOURCE, k)
#define ATAG(s, k) s(MPI_TAG, k)
#define ASTAT(s, k) s(:, k)
#endif
program p2p
#if defined(BIND_F08)
  use mpi_f08
#elif defined(BIND_MPI)
  use mpi
#endif
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
#if defined(BIND_MPIFH)
  include 'mpif.h'
#endif
  ! Each polling loop waits 100 us per turn: on a loaded machine a peer may be off the CPU for
  ! milliseconds, and every poll is a trace record (the default ring must hold them all).
  interface
    integer(c_int) function c_usleep(us) bind(C, name='usleep')
      import :: c_int
      integer(c_int), value :: us
    end function c_usleep
  end interface
  integer(c_int) :: slept
  integer :: ierr, me, p, right, left, i, k, cnt, idx, outc, ndone, nfail, tot, nres
  integer :: x, y, a2(2), b2(2), a3(3), b3(3), a4(4), b4(4), ind(4), res(200)
  logical :: flag
  integer(kind=MPI_ADDRESS_KIND) :: addr
  COMM_T :: comm
  TYPE_T :: tx, ty
  REQ_T :: q(4), pq(2)
  MSG_T :: msg
#if defined(BIND_F08)
  STAT_T :: st, sts(4)
#else
  STAT_T :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
#endif

  nfail = 0
  nres = 0
  call MPI_Init(ierr)
  comm = MPI_COMM_WORLD
  call MPI_Comm_rank(comm, me, ierr)
  call MPI_Comm_size(comm, p, ierr)
  right = mod(me + 1, p)
  left = mod(me + p - 1, p)

  ! ---- 1. Send / Recv
  x = 100*me + 1
  y = -1
  call MPI_Send(x, 1, MPI_INTEGER, right, 1, comm, ierr)
  call ok_err('send')
  call MPI_Recv(y, 1, MPI_INTEGER, left, 1, comm, st, ierr)
  call ok_err('recv')
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call chk(y == 100*left + 1 .and. SRC(st) == left .and. TAG(st) == 1 .and. cnt == 1, 'recv')
  call put(y)

  ! ---- 2. Irecv x 2, Isend x 2, Waitall with statuses
  a2 = [me*10 + 1, me*10 + 2]
  a3 = [me*10 + 3, me*10 + 4, me*10 + 5]
  b2 = -1
  b3 = -1
  call MPI_Irecv(b2, 2, MPI_INTEGER, left, 2, comm, q(1), ierr)
  call MPI_Irecv(b3, 3, MPI_INTEGER, right, 3, comm, q(2), ierr)
  call MPI_Isend(a2, 2, MPI_INTEGER, right, 2, comm, q(3), ierr)
  call MPI_Isend(a3, 3, MPI_INTEGER, left, 3, comm, q(4), ierr)
  call ok_err('irecv/isend')
  call MPI_Waitall(4, q, sts, ierr)
  call ok_err('waitall')
  call MPI_Get_count(ASTAT(sts, 2), MPI_INTEGER, cnt, ierr)
  call chk(all(b2 == [left*10 + 1, left*10 + 2]) .and. all(b3 == [(right*10 + i, i = 3, 5)]), &
           'waitall values')
  call chk(ASRC(sts, 1) == left .and. ATAG(sts, 1) == 2 .and. ASRC(sts, 2) == right .and. &
           ATAG(sts, 2) == 3 .and. cnt == 3, 'waitall statuses')
  call chk(nulls(q, 4), 'waitall: requests not MPI_REQUEST_NULL')
  call put(b2(2))
  call put(b3(3))

  ! ---- 3. Sendrecv
  a4 = [(me*10 + i, i = 1, 4)]
  b4 = -1
  call MPI_Sendrecv(a4, 4, MPI_INTEGER, right, 4, b4, 4, MPI_INTEGER, left, 4, comm, st, ierr)
  call ok_err('sendrecv')
  call chk(all(b4 == [(left*10 + i, i = 1, 4)]) .and. SRC(st) == left .and. TAG(st) == 4, &
           'sendrecv')
  call put(b4(4))

  ! ---- 4. Sendrecv_replace
  x = 1000 + me
  call MPI_Sendrecv_replace(x, 1, MPI_INTEGER, left, 5, right, 5, comm, st, ierr)
  call ok_err('sendrecv_replace')
  call chk(x == 1000 + right .and. SRC(st) == right .and. TAG(st) == 5, 'sendrecv_replace')
  call put(x)

  ! ---- 5. Isend, Probe (any source), Recv, Wait
  b2 = -1
  call MPI_Isend(a2, 2, MPI_INTEGER, right, 6, comm, q(1), ierr)
  call MPI_Probe(MPI_ANY_SOURCE, 6, comm, st, ierr)
  call ok_err('probe')
  call MPI_Get_count(st, MPI_INTEGER, cnt, ierr)
  call chk(SRC(st) == left .and. TAG(st) == 6 .and. cnt == 2, 'probe status')
  call MPI_Recv(b2, 2, MPI_INTEGER, SRC(st), 6, comm, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(q(1), MPI_STATUS_IGNORE, ierr)
  call ok_err('probe recv/wait')
  call chk(all(b2 == [left*10 + 1, left*10 + 2]) .and. q(1) == MPI_REQUEST_NULL, 'probe recv')
  call put(b2(1))

  ! ---- 6. Isend, Iprobe loop, Recv, Test loop (x = 1000 + right: left receives 1000 + me)
  y = -1
  call MPI_Isend(x, 1, MPI_INTEGER, right, 7, comm, q(1), ierr)
  call MPI_Barrier(comm, ierr)
  flag = .false.
  do while (.not. flag)
    slept = c_usleep(100_c_int)
    call MPI_Iprobe(left, 7, comm, flag, st, ierr)
  end do
  call chk(SRC(st) == left .and. TAG(st) == 7, 'iprobe status')
  call MPI_Recv(y, 1, MPI_INTEGER, left, 7, comm, MPI_STATUS_IGNORE, ierr)
  flag = .false.
  do while (.not. flag)
    slept = c_usleep(100_c_int)
    call MPI_Test(q(1), flag, MPI_STATUS_IGNORE, ierr)
  end do
  call ok_err('iprobe/test')
  call chk(y == 1000 + me .and. q(1) == MPI_REQUEST_NULL, 'iprobe recv / test')
  call put(y)

  ! ---- 7. persistent requests (tag 8)
  call MPI_Recv_init(y, 1, MPI_INTEGER, left, 8, comm, pq(1), ierr)
  call MPI_Send_init(x, 1, MPI_INTEGER, right, 8, comm, pq(2), ierr)
  call ok_err('recv_init/send_init')
  do k = 1, 3
    x = 10*k + me
    y = -1
    call MPI_Startall(2, pq, ierr)
    call MPI_Waitall(2, pq, MPI_STATUSES_IGNORE, ierr)
    call ok_err('startall/waitall')
    call chk(y == 10*k + left .and. pq(1) /= MPI_REQUEST_NULL .and. pq(2) /= MPI_REQUEST_NULL, &
             'persistent round')
    call put(y)
  end do
  x = 77 + me
  call MPI_Start(pq(2), ierr)
  call MPI_Start(pq(1), ierr)
  call MPI_Wait(pq(1), st, ierr)
  call MPI_Wait(pq(2), MPI_STATUS_IGNORE, ierr)
  call ok_err('start/wait')
  call chk(y == 77 + left .and. SRC(st) == left .and. TAG(st) == 8 .and. &
           pq(1) /= MPI_REQUEST_NULL, 'persistent start/wait')
  call put(y)
  x = 88 + me
  call MPI_Start(pq(1), ierr)
  call MPI_Start(pq(2), ierr)
  ndone = 0
  do while (ndone < 2)
    slept = c_usleep(100_c_int)
    call MPI_Testsome(2, pq, outc, ind, sts, ierr)
    call ok_err('persistent testsome')
    call chk(outc /= MPI_UNDEFINED, 'persistent testsome outcount')
    if (outc == MPI_UNDEFINED) exit
    do k = 1, outc
      if (ind(k) == 1) call chk(ASRC(sts, k) == left .and. ATAG(sts, k) == 8, &
                                'persistent testsome status')
    end do
    ndone = ndone + outc
  end do
  call chk(y == 88 + left .and. pq(1) /= MPI_REQUEST_NULL, 'persistent start/testsome')
  call put(y)
  call MPI_Request_free(pq(1), ierr)
  call MPI_Request_free(pq(2), ierr)
  call ok_err('request_free')
  call chk(pq(1) == MPI_REQUEST_NULL .and. pq(2) == MPI_REQUEST_NULL, 'request_free')

  ! ---- 8. Waitany, then Waitsome until none is left (tags 9, 10)
  b2 = -1
  call MPI_Irecv(b2(1), 1, MPI_INTEGER, left, 9, comm, q(1), ierr)
  call MPI_Irecv(b2(2), 1, MPI_INTEGER, right, 10, comm, q(2), ierr)
  call MPI_Isend(a2(1), 1, MPI_INTEGER, right, 9, comm, q(3), ierr)
  call MPI_Isend(a2(2), 1, MPI_INTEGER, left, 10, comm, q(4), ierr)
  call MPI_Waitany(4, q, idx, st, ierr)
  call ok_err('waitany')
  call chk(idx >= 1 .and. idx <= 4, 'waitany index')
  if (idx >= 1 .and. idx <= 4) call chk(q(idx) == MPI_REQUEST_NULL, 'waitany request')
  if (idx == 1) call chk(SRC(st) == left .and. TAG(st) == 9, 'waitany status')
  if (idx == 2) call chk(SRC(st) == right .and. TAG(st) == 10, 'waitany status')
  ndone = 1
  do while (ndone < 4)
    slept = c_usleep(100_c_int)
    call MPI_Waitsome(4, q, outc, ind, sts, ierr)
    call ok_err('waitsome')
    call chk(outc /= MPI_UNDEFINED, 'waitsome outcount')
    if (outc == MPI_UNDEFINED) exit
    do k = 1, outc
      call chk(ind(k) >= 1 .and. ind(k) <= 4, 'waitsome index')
      if (ind(k) < 1 .or. ind(k) > 4) cycle
      call chk(q(ind(k)) == MPI_REQUEST_NULL, 'waitsome request')
      if (ind(k) == 1) call chk(ASRC(sts, k) == left .and. ATAG(sts, k) == 9, 'waitsome status')
      if (ind(k) == 2) call chk(ASRC(sts, k) == right .and. ATAG(sts, k) == 10, 'waitsome status')
    end do
    ndone = ndone + outc
  end do
  call chk(ndone == 4 .and. b2(1) == left*10 + 1 .and. b2(2) == right*10 + 2, 'waitsome values')
  call put(b2(1))
  call put(b2(2))

  ! ---- 9. Irecv + Issend by Testany (tag 11), Irecv + Isend by Testsome (tag 12)
  y = -1
  call MPI_Irecv(y, 1, MPI_INTEGER, left, 11, comm, q(1), ierr)
  call MPI_Issend(x, 1, MPI_INTEGER, right, 11, comm, q(2), ierr)
  call MPI_Barrier(comm, ierr) ! every Irecv posted: the polling loops below stay short
  ndone = 0
  do while (ndone < 2)
    slept = c_usleep(100_c_int)
    call MPI_Testany(2, q, idx, flag, st, ierr)
    call ok_err('testany')
    if (.not. flag) cycle
    ndone = ndone + 1
    call chk(idx >= 1 .and. idx <= 2, 'testany index')
    if (idx == 1) call chk(SRC(st) == left .and. TAG(st) == 11, 'testany status')
  end do
  call chk(ndone == 2 .and. y == 88 + left .and. nulls(q, 2), 'testany')
  call put(y)
  b2 = -1
  call MPI_Irecv(b2(1), 1, MPI_INTEGER, left, 12, comm, q(1), ierr)
  call MPI_Isend(a2(2), 1, MPI_INTEGER, right, 12, comm, q(2), ierr)
  call MPI_Barrier(comm, ierr)
  ndone = 0
  do while (ndone < 2)
    slept = c_usleep(100_c_int)
    call MPI_Testsome(2, q, outc, ind, sts, ierr)
    call ok_err('testsome')
    call chk(outc /= MPI_UNDEFINED, 'testsome outcount')
    if (outc == MPI_UNDEFINED) exit
    do k = 1, outc
      call chk(ind(k) >= 1 .and. ind(k) <= 2, 'testsome index')
      if (ind(k) == 1) call chk(ASRC(sts, k) == left .and. ATAG(sts, k) == 12, 'testsome status')
    end do
    ndone = ndone + outc
  end do
  call chk(ndone == 2 .and. b2(1) == left*10 + 2 .and. nulls(q, 2), 'testsome')
  call put(b2(1))

  ! ---- 10. Mprobe / Mrecv (tag 13), Improbe / Imrecv / Testall (tag 14)
  y = -1
  x = 500 + me
  call MPI_Isend(x, 1, MPI_INTEGER, right, 13, comm, q(1), ierr)
  call MPI_Mprobe(left, 13, comm, msg, st, ierr)
  call ok_err('mprobe')
  call chk(SRC(st) == left .and. TAG(st) == 13 .and. msg /= MPI_MESSAGE_NULL, 'mprobe')
  call MPI_Mrecv(y, 1, MPI_INTEGER, msg, st, ierr)
  call ok_err('mrecv')
  call chk(y == 500 + left .and. SRC(st) == left .and. msg == MPI_MESSAGE_NULL, 'mrecv')
  call MPI_Wait(q(1), MPI_STATUS_IGNORE, ierr)
  call put(y)
  y = -1
  call MPI_Isend(x, 1, MPI_INTEGER, right, 14, comm, q(1), ierr)
  call MPI_Barrier(comm, ierr)
  flag = .false.
  do while (.not. flag)
    slept = c_usleep(100_c_int)
    call MPI_Improbe(left, 14, comm, flag, msg, st, ierr)
  end do
  call ok_err('improbe')
  call chk(SRC(st) == left .and. TAG(st) == 14, 'improbe')
  call MPI_Imrecv(y, 1, MPI_INTEGER, msg, q(2), ierr)
  call ok_err('imrecv')
  call chk(msg == MPI_MESSAGE_NULL, 'imrecv message')
  flag = .false.
  do while (.not. flag)
    slept = c_usleep(100_c_int)
    call MPI_Testall(2, q, flag, sts, ierr)
  end do
  call ok_err('testall')
  call chk(y == 500 + left .and. ASRC(sts, 2) == left .and. ATAG(sts, 2) == 14 .and. &
           nulls(q, 2), 'imrecv/testall')
  call put(y)

  ! ---- 11. Sendrecv through MPI_BOTTOM (tag 15)
  x = 900 + me
  y = -1
  call MPI_Get_address(x, addr, ierr)
  call MPI_Type_create_struct(1, [1], [addr], [MPI_INTEGER], tx, ierr)
  call MPI_Get_address(y, addr, ierr)
  call MPI_Type_create_struct(1, [1], [addr], [MPI_INTEGER], ty, ierr)
  call MPI_Type_commit(tx, ierr)
  call MPI_Type_commit(ty, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, tx, right, 15, MPI_BOTTOM, 1, ty, left, 15, comm, st, ierr)
  call ok_err('sendrecv MPI_BOTTOM')
  call chk(y == 900 + left .and. SRC(st) == left, 'sendrecv MPI_BOTTOM')
  call put(y)
  call MPI_Type_free(tx, ierr)
  call MPI_Type_free(ty, ierr)

  ! ---- 12. Irecv, Ssend, Wait (tag 16)
  y = -1
  call MPI_Irecv(y, 1, MPI_INTEGER, left, 16, comm, q(1), ierr)
  call MPI_Ssend(x, 1, MPI_INTEGER, right, 16, comm, ierr)
  call MPI_Wait(q(1), st, ierr)
  call ok_err('ssend')
  call chk(y == 900 + left .and. SRC(st) == left .and. TAG(st) == 16, 'ssend')
  call put(y)

  ! ---- 13. Irecv x 2, Barrier, Rsend, Irsend, Waitall (tags 17, 18)
  b2 = -1
  call MPI_Irecv(b2(1), 1, MPI_INTEGER, left, 17, comm, q(1), ierr)
  call MPI_Irecv(b2(2), 1, MPI_INTEGER, left, 18, comm, q(2), ierr)
  call MPI_Barrier(comm, ierr)
  call MPI_Rsend(a2(1), 1, MPI_INTEGER, right, 17, comm, ierr)
  call MPI_Irsend(a2(2), 1, MPI_INTEGER, right, 18, comm, q(3), ierr)
  call MPI_Waitall(3, q, sts, ierr)
  call ok_err('rsend/irsend')
  call chk(all(b2 == [left*10 + 1, left*10 + 2]) .and. ATAG(sts, 2) == 18 .and. &
           nulls(q, 3), 'rsend/irsend')
  call put(b2(2))

  write (*, '(a,i0,a,*(1x,i0))') 'result ', me, ':', res(1:nres)
  call MPI_Allreduce(nfail, tot, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
  if (me == 0) then
    if (tot == 0) then
      write (*, '(a)') 'fortran p2p: all ok'
    else
      write (*, '(a,i0,a)') 'fortran p2p: ', tot, ' failures'
    end if
  end if
  call MPI_Finalize(ierr)

contains

  subroutine chk(cond, what)
    logical, intent(in) :: cond
    character(len=*), intent(in) :: what
    if (.not. cond) then
      nfail = nfail + 1
      write (*, '(a,i0,a,a)') 'FAIL rank ', me, ': ', what
    end if
  end subroutine chk

  subroutine ok_err(what)
    character(len=*), intent(in) :: what
    call chk(ierr == MPI_SUCCESS, what//': error code')
  end subroutine ok_err

  logical function nulls(r, n)
    integer, intent(in) :: n
    REQ_T, intent(in) :: r(n)
    integer :: j
    nulls = .true.
    do j = 1, n
      if (r(j) /= MPI_REQUEST_NULL) nulls = .false.
    end do
  end function nulls

  subroutine put(v)
    integer, intent(in) :: v
    nres = nres + 1
    res(nres) = v
  end subroutine put

end program p2p
