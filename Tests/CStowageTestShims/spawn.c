#define _GNU_SOURCE
#include <signal.h>
#include <spawn.h>
#include <fcntl.h>
#include <unistd.h>
#include "CStowageTestShims.h"

int cstowage_test_pipe(int descriptors[2]) {
    return pipe2(descriptors, O_CLOEXEC);
}

static int standard_stream(posix_spawn_file_actions_t *actions, int descriptor, int stream) {
    return descriptor < 0 ? posix_spawn_file_actions_addclose(actions, stream)
                          : posix_spawn_file_actions_adddup2(actions, descriptor, stream);
}

int cstowage_test_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
                        const char *directory, int input, int output, int error) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    sigset_t none, defaults;
    sigemptyset(&none);
    sigfillset(&defaults);
    sigdelset(&defaults, SIGKILL);
    sigdelset(&defaults, SIGSTOP);
    // A negative descriptor leaves that standard stream closed in the child (`>&-` in a shell).
    if ((result = standard_stream(&actions, input, 0)) == 0
        && (result = standard_stream(&actions, output, 1)) == 0
        && (result = standard_stream(&actions, error, 2)) == 0
        && (directory == NULL || (result = posix_spawn_file_actions_addchdir_np(&actions, directory)) == 0)
        && (result = posix_spawn_file_actions_addclosefrom_np(&actions, 3)) == 0
        && (result = posix_spawnattr_setsigmask(&attributes, &none)) == 0
        && (result = posix_spawnattr_setsigdefault(&attributes, &defaults)) == 0
        && (result = posix_spawnattr_setpgroup(&attributes, 0)) == 0
        && (result = posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
                                                                | POSIX_SPAWN_SETPGROUP)) == 0) {
        result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}
