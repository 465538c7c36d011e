// The POSIX names lib/ uses that mingw-w64's headers lack, with the values Linux gives them; the
// calls behind them are the system-call table's Windows entries (platform/windows*.cpp).
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
// Their lseek and ftruncate are macros: every file sees them before the table names its entries.
#include <io.h>
#include <unistd.h>

typedef int uid_t;
typedef int gid_t;

// open(2): what Windows has no flag for is 0; O_DIRECTORY opens a directory's handle, O_PATH a
// handle for the file's attributes only.
#define O_CLOEXEC _O_NOINHERIT
#define O_NOCTTY 0
#define O_NONBLOCK 0
#define O_NOFOLLOW 0
#define O_DIRECTORY 0x10000000
#define O_PATH 0x20000000

// The *at calls.
#define AT_FDCWD (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_REMOVEDIR 0x200
#define AT_SYMLINK_FOLLOW 0x400

// Windows reports a full quota as a full disk.
#define EDQUOT ENOSPC
#define NAME_MAX 255

// fcntl(2).
#define F_GETFL 3
#define F_SETFL 4
#define F_GETLK 5
#define F_SETLK 6
#define F_SETLKW 7
#define F_RDLCK 0
#define F_WRLCK 1
#define F_UNLCK 2
struct flock {
  short l_type;
  short l_whence;
  off_t l_start;
  off_t l_len;
  int l_pid;
};

// Kinds and bits of files Windows does not have.
#define S_IFLNK 0xA000
#define S_ISLNK(m) (((m) & S_IFMT) == S_IFLNK)
#define S_ISUID 04000
#define S_ISGID 02000
#define S_ISVTX 01000

// mmap(2) and madvise(2).
#define PROT_NONE 0
#define PROT_READ 1
#define PROT_WRITE 2
#define MAP_SHARED 1
#define MAP_PRIVATE 2
#define MAP_FIXED 0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FAILED (reinterpret_cast<void*>(-1))
#define MADV_NORMAL 0
#define MADV_RANDOM 1
#define MADV_SEQUENTIAL 2
#define MADV_WILLNEED 3

// sysconf(3): _SC_PAGESIZE answers the granularity of a mapping's offsets, 64 KiB on Windows.
#define _SC_PAGESIZE 30
long sysconf(int name);

// getrlimit(2): Windows limits no file's size.
typedef unsigned long long rlim_t;
#define RLIM_INFINITY (~0ULL)
#define RLIMIT_FSIZE 1
struct rlimit {
  rlim_t rlim_cur;
  rlim_t rlim_max;
};
int getrlimit(int resource, struct rlimit* limit);

// nl_langinfo(3): the one item lib/ asks, from the thread's locale.
#define RADIXCHAR 0x10000
char* nl_langinfo(int item);
