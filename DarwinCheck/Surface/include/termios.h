// Stand-in for <termios.h> and <sys/termios.h> (xnu-11417.101.15: bsd/sys/termios.h,
// bsd/sys/_types/_termios.h): the terminal modes the command's usage browser sets and gives back.
#ifndef STOWAGE_STANDIN_TERMIOS_H
#define STOWAGE_STANDIN_TERMIOS_H

typedef unsigned long tcflag_t;
typedef unsigned char cc_t;
typedef unsigned long speed_t;

#define NCCS 20

struct termios {
    tcflag_t c_iflag;  // input flags
    tcflag_t c_oflag;  // output flags
    tcflag_t c_cflag;  // control flags
    tcflag_t c_lflag;  // local flags
    cc_t c_cc[NCCS];   // control chars
    speed_t c_ispeed;  // input speed
    speed_t c_ospeed;  // output speed
};

// c_cc indexes.
#define VMIN  16
#define VTIME 17

// c_iflag.
#define BRKINT 0x00000002
#define INPCK  0x00000010
#define ISTRIP 0x00000020
#define ICRNL  0x00000100
#define IXON   0x00000200

// c_cflag.
#define CSIZE 0x00000300
#define CS8   0x00000300

// c_lflag.
#define ECHO   0x00000008
#define ISIG   0x00000080
#define ICANON 0x00000100
#define IEXTEN 0x00000400

// tcsetattr's actions.
#define TCSANOW   0
#define TCSADRAIN 1
#define TCSAFLUSH 2

int tcgetattr(int, struct termios *);
int tcsetattr(int, int, const struct termios *);

#endif
