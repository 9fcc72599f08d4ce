// Stand-in for <sys/poll.h> (xnu-11417.101.15: bsd/sys/poll.h): poll(2), with which the
// command's usage browser waits for a key, the end of its scan or a signal.
#ifndef STOWAGE_STANDIN_SYS_POLL_H
#define STOWAGE_STANDIN_SYS_POLL_H

#define POLLIN   0x0001  // readable data available
#define POLLERR  0x0008  // an error occurred (always reported)
#define POLLHUP  0x0010  // hung up (always reported)
#define POLLNVAL 0x0020  // not an open descriptor (always reported)

struct pollfd {
    int fd;
    short events;
    short revents;
};

typedef unsigned int nfds_t;

int poll(struct pollfd *, nfds_t, int);

#endif
