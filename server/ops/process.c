#include "server/ops/process.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

struct process {
    double cpu_seconds;        /* user + system, /proc/self/stat utime + stime */
    double resident_bytes;     /* rss pages x page size */
    double virtual_bytes;      /* vsize */
    double open_fds;           /* entries of /proc/self/fd */
    double max_fds;            /* the soft RLIMIT_NOFILE */
    double start_time_seconds; /* since the epoch: boot time + starttime */
};

/* Fields 14 (utime) to 24 (rss) of /proc/self/stat, counted from 1: the
 * command (field 2) may hold spaces and parentheses, so reading starts
 * after its last ')'. */
static int read_stat(double *cpu, double *start_ticks, double *vsize_out, double *rss_pages)
{
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "re");
    if (f == NULL)
        return -errno;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (p == NULL)
        return -EIO;
    /* field 3 is the state, one letter; the rest are numbers */
    unsigned long long utime, stime, start, vsize, rss;
    if (sscanf(p + 1,
               " %*c %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %llu %llu %*u %*u %*u %*u %*u %*u "
               "%llu %llu %llu",
               &utime, &stime, &start, &vsize, &rss) != 5)
        return -EIO;
    long tick = sysconf(_SC_CLK_TCK);
    if (tick <= 0)
        return -EIO;
    *cpu = (double)(utime + stime) / (double)tick;
    *start_ticks = (double)start / (double)tick;
    *vsize_out = (double)vsize;
    *rss_pages = (double)rss;
    return 0;
}

/* The boot time (btime of /proc/stat), seconds since the epoch. */
static int boot_time(double *btime)
{
    char line[256];
    FILE *f = fopen("/proc/stat", "re");
    int rc = -EIO;
    if (f == NULL)
        return -errno;
    while (fgets(line, sizeof(line), f) != NULL) {
        unsigned long long b;
        if (sscanf(line, "btime %llu", &b) == 1) {
            *btime = (double)b;
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

static int open_fds(double *n)
{
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL)
        return -errno;
    long count = 0;
    const struct dirent *e;
    /* readdir on a stream of its own is thread-safe in glibc (readdir_r is
     * the deprecated one) */
    /* cppcheck-suppress readdirCalled */
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.')
            count++;
    closedir(d);
    *n = (double)(count - 1); /* not the directory's own descriptor */
    return 0;
}

static int read_process(struct process *p)
{
    double start_ticks = 0, rss_pages = 0, btime = 0;
    struct rlimit rl;
    int rc;

    if ((rc = read_stat(&p->cpu_seconds, &start_ticks, &p->virtual_bytes, &rss_pages)) != 0 ||
        (rc = boot_time(&btime)) != 0 || (rc = open_fds(&p->open_fds)) != 0)
        return rc;
    if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
        return -errno;
    long page = sysconf(_SC_PAGESIZE);
    p->resident_bytes = rss_pages * (double)(page > 0 ? page : 4096);
    p->max_fds = rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur;
    p->start_time_seconds = btime + start_ticks;
    return 0;
}

void ops_process_print(FILE *f)
{
    struct process p;
    if (read_process(&p) != 0)
        return;
    /* The HELP texts of client_golang's process collector, word for word,
     * so that dashboards made for any exporter read these alike. */
    fprintf(f,
            "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
            "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %.9g\n"
            "# HELP process_open_fds Number of open file descriptors.\n"
            "# TYPE process_open_fds gauge\nprocess_open_fds %.17g\n",
            p.cpu_seconds, p.open_fds);
    if (p.max_fds >= 0)
        fprintf(f,
                "# HELP process_max_fds Maximum number of open file descriptors.\n"
                "# TYPE process_max_fds gauge\nprocess_max_fds %.17g\n",
                p.max_fds);
    fprintf(f,
            "# HELP process_virtual_memory_bytes Virtual memory size in bytes.\n"
            "# TYPE process_virtual_memory_bytes gauge\nprocess_virtual_memory_bytes %.17g\n"
            "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
            "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %.17g\n"
            "# HELP process_start_time_seconds Start time of the process since unix epoch in "
            "seconds.\n"
            "# TYPE process_start_time_seconds gauge\nprocess_start_time_seconds %.2f\n",
            p.virtual_bytes, p.resident_bytes, p.start_time_seconds);
}
