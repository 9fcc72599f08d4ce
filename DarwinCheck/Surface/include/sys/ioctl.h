// Stand-in for <sys/ioctl.h> (xnu-11417.101.15: bsd/sys/ioctl.h, bsd/sys/ttycom.h,
// bsd/sys/_types/_winsize.h).
#ifndef STOWAGE_STANDIN_SYS_IOCTL_H
#define STOWAGE_STANDIN_SYS_IOCTL_H

struct winsize {
    unsigned short ws_row;
    unsigned short ws_col;
    unsigned short ws_xpixel;
    unsigned short ws_ypixel;
};

// _IOR('t', 104, struct winsize): out, 8 bytes, group 't', number 104.
#define TIOCGWINSZ 0x40087468UL

int ioctl(int, unsigned long, ...);

#endif
