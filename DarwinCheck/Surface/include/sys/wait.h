// Stand-in for <sys/wait.h> (xnu-11417.101.15: bsd/sys/wait.h).
#ifndef STOWAGE_STANDIN_SYS_WAIT_H
#define STOWAGE_STANDIN_SYS_WAIT_H

#include <sys/types.h>

#define _WSTATUS(x)    ((x) & 0177)
#define _WSTOPPED      0177
#define WEXITSTATUS(x) (((x) >> 8) & 0x000000ff)
#define WIFEXITED(x)   (_WSTATUS(x) == 0)
#define WIFSIGNALED(x) (_WSTATUS(x) != _WSTOPPED && _WSTATUS(x) != 0)
#define WTERMSIG(x)    (_WSTATUS(x))

pid_t waitpid(pid_t, int *, int);

#endif
