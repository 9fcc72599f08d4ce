// The room's child process, shared between room.c (mounts, a series, the spawner) and
// room_process.c (reports, signal relay, descriptors, the command and init). Not exported:
// every name here is hidden from the library's users.
#ifndef CSTOWAGE_ROOM_CHILD_H
#define CSTOWAGE_ROOM_CHILD_H
#if defined(__linux__)

#include "CStowageRoom.h"
#include <signal.h>

#pragma GCC visibility push(hidden)

/// The most descriptors `room_close_all_but` keeps.
#define ROOM_KEPT_LIMIT 8

/// What a room runs: the command, or (in a series) the check.
typedef struct room_program {
    const char *executable;
    char *const *arguments;
    char *const *environment;
} room_program;

extern sigset_t room_ignored;
extern volatile sig_atomic_t room_relay_target;
void room_report(const cstowage_room_spec *spec, int kind, int stage, int error, int index, int value, int user);
void room_fail(const cstowage_room_spec *spec, int stage, int index, int user);
char *room_append(char *cursor, char *end, const char *text);
char *room_append_number(char *cursor, char *end, long value);
int room_write_file(const char *path, const char *text);
void room_relay(int number, siginfo_t *info, void *context);
void room_take_signals(void);
void room_give_back_signals(void);
void room_block_signals(void);
void room_unblock_signals(void);
void room_close_all_but(const int *keep, int count);
void room_end_as(int status);
void room_command(const cstowage_room_spec *spec, const room_program *program, int user);
void room_init(const cstowage_room_spec *spec, const room_program *program, int link, int user);

#pragma GCC visibility pop

#endif
#endif
