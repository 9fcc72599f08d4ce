#define _GNU_SOURCE
#include "CStowageRoom.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <poll.h>
#include <linux/loop.h>
#endif

// A room's loop device, and waiting for and piping to its child (the parent's side).

#if defined(__linux__)

int cstowage_loop_attach(int backing, int *number) {
    int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
    if (control < 0) return -1;
    for (int attempt = 0; attempt < 64; attempt++) {
        int free_number = ioctl(control, LOOP_CTL_GET_FREE);
        if (free_number < 0) break;
        char path[32];
        snprintf(path, sizeof path, "/dev/loop%d", free_number);
        int device = open(path, O_RDWR | O_CLOEXEC);
        if (device < 0) break;
        struct loop_config config;
        memset(&config, 0, sizeof config);
        config.fd = (uint32_t)backing;
        config.info.lo_flags = LO_FLAGS_AUTOCLEAR;
        if (ioctl(device, LOOP_CONFIGURE, &config) == 0) {
            close(control);
            *number = free_number;
            return device;
        }
        if (errno == EINVAL || errno == ENOTTY) {  // before Linux 5.8: attach, then set the flag
            if (ioctl(device, LOOP_SET_FD, backing) == 0) {
                struct loop_info64 info;
                memset(&info, 0, sizeof info);
                info.lo_flags = LO_FLAGS_AUTOCLEAR;
                if (ioctl(device, LOOP_SET_STATUS64, &info) == 0) {
                    close(control);
                    *number = free_number;
                    return device;
                }
                int saved = errno;
                ioctl(device, LOOP_CLR_FD, 0);
                close(device);
                close(control);
                errno = saved;
                return -1;
            }
        }
        int saved = errno;
        close(device);
        if (saved != EBUSY) {
            close(control);
            errno = saved;
            return -1;
        }
        // Another process took this device between the two calls: ask again.
    }
    int saved = errno != 0 ? errno : EBUSY;
    close(control);
    errno = saved;
    return -1;
}

#else

int cstowage_loop_attach(int backing, int *number) {
    (void)backing; (void)number;
    errno = ENOSYS;
    return -1;
}

#endif

int cstowage_wait(pid_t pid, int *status) {
    for (;;) {
        pid_t result = waitpid(pid, status, 0);
        if (result == pid) return 0;
        if (result < 0 && errno == EINTR) continue;
        return -1;
    }
}

int cstowage_wait_ended(pid_t pid) {
#if defined(__linux__)
    for (;;) {
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0) return 0;
        if (errno != EINTR) return -1;
    }
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int cstowage_wait_status(int status, int *value) {
    if (WIFEXITED(status)) {
        *value = WEXITSTATUS(status);
        return 1;
    }
    if (WIFSIGNALED(status)) {
        *value = WTERMSIG(status);
        return 2;
    }
    return 0;
}

int cstowage_pipe(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

long cstowage_page_size(void) { return sysconf(_SC_PAGESIZE); }
