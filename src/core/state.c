/*
 * Process-wide state: settings, the call tag ranges, the lock for shared tables, file reading
 * and the check that the running MPI is the one this library was built for.
 *
 * Thread safety: under MPI_THREAD_MULTIPLE concurrent collectives on different communicators are
 * safe. Per-communicator contexts are touched only by the thread running a collective on that
 * communicator (MPI already requires collectives on one communicator to be serialized); the
 * process-wide tables (logs, statistics, the select layer's forcing) are guarded by one mutex.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ac.h"

ac_state_t ac_g;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
void ac_lock(void) {
    pthread_mutex_lock(&mtx);
}
void ac_unlock(void) {
    pthread_mutex_unlock(&mtx);
}

static const char *file_kind(mode_t m) {
    return S_ISDIR(m)    ? "a directory"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
                         : "not a regular file";
}

/* The bytes of a file (malloc'ed, at most max), or NULL with the reason in why. Only a regular
 * file is read: opening a FIFO would block until a writer comes (MPI_Init hung on every rank
 * with a FIFO as AUTOCOLL_TABLE), a device may never end. stat() first, then open without
 * blocking and check the opened file again (it may have been replaced in between). */
char *ac_file_read(const char *path, size_t max, size_t *len, char *why, size_t whylen) {
    struct stat st;
    char *buf = NULL;
    *len = 0;
    if (stat(path, &st) != 0) {
        snprintf(why, whylen, "cannot open '%.200s': %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "'%.200s' is %s, not a regular file", path, file_kind(st.st_mode));
        return NULL;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, whylen, "cannot open '%.200s': %s", path, strerror(errno));
        return NULL;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, whylen, "'%.200s' is %s, not a regular file", path, file_kind(st.st_mode));
        close(fd);
        return NULL;
    }
    if ((size_t)st.st_size > max) {
        snprintf(why, whylen, "'%.200s' is larger than %zu bytes", path, max);
        close(fd);
        return NULL;
    }
    /* the size may change while reading: read to the end, up to the limit */
    size_t cap = (size_t)st.st_size + 1;
    buf = malloc(cap);
    while (buf) {
        if (*len == cap) {
            if (cap > max) {
                snprintf(why, whylen, "'%.200s' is larger than %zu bytes", path, max);
                free(buf);
                buf = NULL;
                break;
            }
            char *n = realloc(buf, 2 * cap);
            if (!n) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = n;
            cap *= 2;
        }
        ssize_t got = read(fd, buf + *len, cap - *len);
        if (got == 0) break;
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(why, whylen, "cannot read '%.200s': %s", path, strerror(errno));
            free(buf);
            buf = NULL;
            break;
        }
        *len += (size_t)got;
    }
    if (!buf && !why[0]) snprintf(why, whylen, "'%.200s': out of memory", path);
    close(fd);
    return buf;
}

char *ac_file_read_world(const char *path, size_t max, int collective, size_t *len, char *why,
                         size_t whylen) {
    char *buf = NULL;
    *len = 0;
    if (!collective || ac_g.world_rank == 0) buf = ac_file_read(path, max, len, why, whylen);
    if (!collective) return buf;
    long n = buf ? (long)*len : -1;
    PMPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (n >= 0 && ac_g.world_rank != 0) {
        buf = malloc((size_t)n + 1);
        *len = (size_t)n;
    }
    /* Every rank takes part in the broadcast, even one out of memory. */
    int ok = buf != NULL || n < 0, all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (n >= 0 && all) {
        PMPI_Bcast(buf, (int)n, MPI_CHAR, 0, MPI_COMM_WORLD);
        buf[n] = '\0';
    }
    if (n >= 0 && !all) {
        free(buf);
        buf = NULL;
        *len = 0;
        snprintf(why, whylen, "out of memory");
    }
    return buf;
}

void ac_state_setup(int collective) {
    if (ac_g.initialized) return;
    PMPI_Comm_rank(MPI_COMM_WORLD, &ac_g.world_rank);
    /* Tag ranges of the calls (AC_TAG): as many as fit below MPI_TAG_UB (at least 32767). */
    int *ub = NULL, flag = 0;
    PMPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    long tag_ub = flag && ub && *ub >= 32767 ? *ub : 32767;
    ac_g.tag_slots = (int)((tag_ub - AC_TAG_BASE + 1) / AC_TAG_STRIDE);
    char *block = ac_settings_env_block();
    if (collective) {
        /* Rank 0's settings for everyone: a rank whose environment differs cannot pick a
         * different algorithm and hang the job. */
        int len = (ac_g.world_rank == 0 && block) ? (int)strlen(block) + 1 : 0;
        PMPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
        char *shared = malloc(len > 0 ? (size_t)len : 1);
        if (shared) {
            if (ac_g.world_rank == 0 && len > 0) memcpy(shared, block, (size_t)len);
            if (len > 0)
                PMPI_Bcast(shared, len, MPI_CHAR, 0, MPI_COMM_WORLD);
            else
                shared[0] = '\0';
            free(block);
            block = shared;
        }
    }
    char err[4096];
    ac_settings_parse(&ac_g.set, block, err, sizeof err);
    free(block);
    if (err[0] && ac_g.world_rank == 0) {
        for (char *line = strtok(err, "\n"); line; line = strtok(NULL, "\n"))
            ac_log("%s", line);
    }
    ac_ctx_init_keyval();
}

void ac_state_teardown(void) {
    if (!ac_g.initialized || ac_g.finalized) return;
    ac_ctx_free_all();
    ac_sig_teardown();
    ac_g.finalized = 1;
}

/* Which MPI this file was compiled for. The families differ in ABI: Open MPI's handles are
 * pointers to its objects, MPICH's (and its derivatives') are 32-bit integers, so a library built
 * for one and preloaded into a program of the other fails at its first MPI call ("Invalid
 * communicator", a crash). */
#if defined(OMPI_MAJOR_VERSION)
#define AC_MPI_BUILT "Open MPI"
#define AC_MPI_BUILT_OMPI 1
#elif defined(MPICH_VERSION)
#define AC_MPI_BUILT "MPICH"
#define AC_MPI_BUILT_OMPI 0
#endif

#ifdef AC_MPI_BUILT
/* 1 when the launcher says this process is not rank 0 of the job (then it stays quiet). */
static int launcher_rank_nonzero(void) {
    static const char *vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return strcmp(v, "0") != 0;
    }
    return 0;
}
#endif

/* Before MPI_Init: is the running MPI library of the family this library was compiled for?
 * Uses only MPI_Get_library_version, which MPI allows before MPI_Init and which takes no handle.
 * Returns 0 when it is, or when that cannot be told (another MPI, a build for neither family).
 * Otherwise 1 or 2 with the explanation in why ("" on a process that the launcher numbers other
 * than 0: one message per job):
 *   1  built for Open MPI, running MPICH: the wrappers' pointer-sized handle parameters carry
 *      MPICH's integer handles unchanged, so the library can stay dormant (every call straight
 *      to the MPI library) and the program runs;
 *   2  built for MPICH, running Open MPI: the wrappers' int handle parameters truncate Open MPI's
 *      pointers, so even passing calls through crashes: the caller must stop the program. */
int ac_mpi_abi_check(char *why, size_t len) {
    if (len) why[0] = '\0';
#ifdef AC_MPI_BUILT
    /* MPICH's MPI_MAX_LIBRARY_VERSION_STRING is 8192, Open MPI's 256: the buffer must hold what
     * the running library may write, not what the constant we were compiled with says. */
    static char ver[16384 + 1];
    int n = 0;
    if (PMPI_Get_library_version(ver, &n) != 0) return 0;
    ver[n > 0 && n < (int)sizeof ver ? n : (int)sizeof ver - 1] = '\0';
    int ompi = strstr(ver, "Open MPI") != NULL;
    int mpich = !ompi && (strstr(ver, "MPICH") || strstr(ver, "MVAPICH") ||
                          strstr(ver, "Intel(R) MPI") || strstr(ver, "CRAY MPICH"));
    if (AC_MPI_BUILT_OMPI ? !mpich : !ompi) return 0;
    int rc = AC_MPI_BUILT_OMPI ? 1 : 2;
    if (!launcher_rank_nonzero() && len) {
        ver[strcspn(ver, "\n")] = '\0';
        snprintf(why, len,
                 "this autocoll library was built for %s, but the program runs with '%.100s', "
                 "whose ABI differs (MPI handles such as MPI_COMM_WORLD mean other things): %s; "
                 "build autocoll with this MPI's compiler wrapper (mpicc) and preload that build",
                 AC_MPI_BUILT, ver,
                 rc == 1 ? "autocoll stays out of the way (every call goes to the MPI library)"
                         : "the program cannot run with it and is stopped");
    }
    return rc;
#else
    return 0;
#endif
}

AC_EXPORT const char *autocoll_version(void) {
#define AC_STR2(x) #x
#define AC_STR(x) AC_STR2(x)
    return AC_STR(AUTOCOLL_VERSION_MAJOR) "." AC_STR(AUTOCOLL_VERSION_MINOR) "." AC_STR(
        AUTOCOLL_VERSION_PATCH);
}
