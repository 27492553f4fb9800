/*
 * lazyfs: a FUSE filesystem for power-loss tests, after LazyFS ("When Amnesia Strikes", VLDB 2024).
 *
 * Usage: lazyfs [--sync-delay-ms N] BACKING MOUNTPOINT
 *
 * Everything written through the mount lives in this process's memory. Only fsync and fdatasync
 * copy a file's changed blocks to the backing directory, and only fsync of a directory records
 * that directory's names there. So whatever ends this process (SIGKILL, SIGTERM, an unmount) is
 * a power cut: data and names that were not synced are gone, and the next lazyfs over the same
 * backing directory serves exactly what was synced.
 *
 * The backing directory holds the durable image, one object per inode, so that a name and a
 * file's data can be durable separately, as on a disk:
 *   file-<ino>  the file's synced contents
 *   dir-<ino>   the directory's synced entries, one "<ino> <octal mode> <name>" line each
 * The root is inode 1. At start, objects no synced name reaches are deleted, as a disk's
 * recovery frees inodes that no directory points to.
 *
 * --sync-delay-ms makes each fsync a slow disk's: it is answered N ms after it was asked, and its
 * data is copied when it is answered (so it may take in later writes too, as a disk may). A power
 * cut before the answer loses them, while other requests go on being served meanwhile.
 *
 * Single-threaded: one request at a time, so no locks. POSIX locks are left to the kernel.
 * The kernel's page cache is kept across opens (every change passes through it), which is what
 * lets SQLite map its -shm file shared between connections and processes.
 */
#define _GNU_SOURCE /* RENAME_NOREPLACE */
#define FUSE_USE_VERSION 34
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define MAX_FILE_SIZE (1UL << 30)
#define CACHE_SECONDS 1.0

struct node;

struct entry {
	char *name;
	struct node *node;
	struct entry *next;
};

struct node {
	fuse_ino_t ino;
	mode_t mode;
	nlink_t nlink;             /* names in the live tree (+2 and subdirectories for a directory) */
	unsigned open;             /* open handles */
	bool durable;              /* its object exists in the backing directory */
	struct timespec mtime, ctime;
	/* a regular file */
	char *data;
	size_t size, cap;
	unsigned char *dirty;      /* one flag per block changed since the last sync */
	/* a directory */
	struct entry *entries;
	struct node *parent;
};

struct pending_sync {
	fuse_req_t req;
	struct node *node;
	struct timespec due;
	struct pending_sync *next;
};

static struct node **nodes;
static fuse_ino_t nodes_cap, next_ino = 2;
static int backing = -1;
static long sync_delay_ms;
static struct pending_sync *pending_head, *pending_tail;

static void die(const char *what)
{
	fprintf(stderr, "lazyfs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p) die("out of memory");
	return p;
}

static struct timespec now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts;
}

static struct node *node_new(fuse_ino_t ino, mode_t mode)
{
	if (ino >= nodes_cap) {
		fuse_ino_t cap = nodes_cap ? nodes_cap : 64;
		while (cap <= ino) cap *= 2;
		nodes = xrealloc(nodes, cap * sizeof *nodes);
		memset(nodes + nodes_cap, 0, (cap - nodes_cap) * sizeof *nodes);
		nodes_cap = cap;
	}
	struct node *n = xrealloc(NULL, sizeof *n);
	memset(n, 0, sizeof *n);
	n->ino = ino;
	n->mode = mode;
	n->nlink = S_ISDIR(mode) ? 2 : 0;
	n->mtime = n->ctime = now();
	nodes[ino] = n;
	if (ino >= next_ino) next_ino = ino + 1;
	return n;
}

static struct node *node_get(fuse_ino_t ino)
{
	return ino < nodes_cap ? nodes[ino] : NULL;
}

/* A file nobody can reach any more needs no contents; its object stays for the synced names. */
static void maybe_free_data(struct node *n)
{
	if (n->nlink > 0 || n->open > 0 || S_ISDIR(n->mode)) return;
	free(n->data);
	free(n->dirty);
	n->data = NULL;
	n->dirty = NULL;
	n->size = n->cap = 0;
}

static void mark_dirty(struct node *n, size_t from, size_t to)
{
	for (size_t b = from / BLOCK; b * BLOCK < to; b++) n->dirty[b] = 1;
}

/* Grown bytes read as zeros and count as changed: the backing object may hold older bytes there. */
static int file_resize(struct node *n, size_t size)
{
	if (size > MAX_FILE_SIZE) return EFBIG;
	if (size > n->cap) {
		size_t cap = n->cap ? n->cap : BLOCK;
		while (cap < size) cap *= 2;
		n->data = xrealloc(n->data, cap);
		n->dirty = xrealloc(n->dirty, cap / BLOCK);
		memset(n->dirty + n->cap / BLOCK, 0, (cap - n->cap) / BLOCK);
		n->cap = cap;
	}
	if (size > n->size) {
		memset(n->data + n->size, 0, size - n->size);
		mark_dirty(n, n->size, size);
	}
	n->size = size;
	n->mtime = n->ctime = now();
	return 0;
}

static void object_name(char *buf, size_t len, const struct node *n, const char *suffix)
{
	snprintf(buf, len, "%s-%lu%s", S_ISDIR(n->mode) ? "dir" : "file", (unsigned long)n->ino, suffix);
}

/* The backing files are not fsynced themselves: the power cut this simulates is lazyfs's death. */
static int persist_file(struct node *n)
{
	char name[64];
	object_name(name, sizeof name, n, "");
	int fd = openat(backing, name, O_WRONLY | O_CREAT, 0600);
	if (fd < 0) return errno;
	int err = ftruncate(fd, (off_t)n->size) < 0 ? errno : 0;
	size_t blocks = (n->size + BLOCK - 1) / BLOCK;
	for (size_t b = 0; b < blocks && !err; b++) {
		if (!n->dirty[b]) continue;
		size_t end = b;
		while (end < blocks && n->dirty[end]) end++;
		size_t from = b * BLOCK, to = end * BLOCK < n->size ? end * BLOCK : n->size;
		if (pwrite(fd, n->data + from, to - from, (off_t)from) != (ssize_t)(to - from)) err = errno ? errno : EIO;
		b = end;
	}
	close(fd);
	if (err) return err;
	if (n->dirty) memset(n->dirty, 0, n->cap / BLOCK);
	n->durable = true;
	return 0;
}

/* A synced name needs an object behind it: what the file or directory had synced, else nothing. */
static int make_durable(struct node *n)
{
	if (n->durable) return 0;
	char name[64];
	object_name(name, sizeof name, n, "");
	int fd = openat(backing, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) return errno;
	close(fd);
	n->durable = true;
	return 0;
}

/* Writes the listing to a temporary object and renames it over the old one: all or nothing. */
static int persist_dir(struct node *dir)
{
	for (struct entry *e = dir->entries; e; e = e->next) {
		int err = make_durable(e->node);
		if (err) return err;
	}
	char name[64], tmp[64];
	object_name(name, sizeof name, dir, "");
	object_name(tmp, sizeof tmp, dir, ".tmp");
	int fd = openat(backing, tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) return errno;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return errno;
	}
	for (struct entry *e = dir->entries; e; e = e->next)
		fprintf(f, "%lu %o %s\n", (unsigned long)e->node->ino, (unsigned)e->node->mode, e->name);
	if (fclose(f) != 0) return errno;
	if (renameat(backing, tmp, backing, name) < 0) return errno;
	dir->durable = true;
	return 0;
}

static struct entry *find_entry(struct node *dir, const char *name, struct entry ***link)
{
	for (struct entry **p = &dir->entries; *p; p = &(*p)->next) {
		if (strcmp((*p)->name, name) == 0) {
			if (link) *link = p;
			return *p;
		}
	}
	return NULL;
}

static void add_entry(struct node *dir, const char *name, struct node *n)
{
	struct entry *e = xrealloc(NULL, sizeof *e);
	e->name = strdup(name);
	if (!e->name) die("out of memory");
	e->node = n;
	e->next = dir->entries;
	dir->entries = e;
	if (S_ISDIR(n->mode)) {
		n->parent = dir;
		dir->nlink++;
	} else {
		n->nlink++;
	}
	dir->mtime = dir->ctime = now();
}

/* Removes the name only; the caller decides what becomes of the node. */
static void remove_entry(struct node *dir, struct entry **link)
{
	struct entry *e = *link;
	*link = e->next;
	if (S_ISDIR(e->node->mode)) dir->nlink--;
	else e->node->nlink--;
	e->node->ctime = dir->mtime = dir->ctime = now();
	free(e->name);
	free(e);
}

/* ---- loading the durable image ---- */

static void load_file(struct node *n)
{
	char name[64];
	object_name(name, sizeof name, n, "");
	int fd = openat(backing, name, O_RDONLY);
	if (fd < 0) return;
	struct stat st;
	if (fstat(fd, &st) < 0) die("stat a backing file");
	file_resize(n, (size_t)st.st_size);
	if (n->size > 0 && pread(fd, n->data, n->size, 0) != (ssize_t)n->size) die("read a backing file");
	if (n->dirty) memset(n->dirty, 0, n->cap / BLOCK);
	close(fd);
}

static void load_dir(struct node *dir)
{
	char name[64];
	object_name(name, sizeof name, dir, "");
	int fd = openat(backing, name, O_RDONLY);
	if (fd < 0) return;
	FILE *f = fdopen(fd, "r");
	if (!f) die("open a directory listing");
	char *line = NULL;
	size_t len = 0;
	while (getline(&line, &len, f) > 0) {
		unsigned long ino;
		unsigned mode;
		int at = 0;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%lu %o %n", &ino, &mode, &at) != 2 || at == 0 || ino < 2) continue;
		struct node *n = node_get(ino);
		if (n && S_ISDIR(n->mode)) continue; /* a directory has one name */
		if (!n) {
			n = node_new(ino, mode);
			n->durable = true;
		}
		add_entry(dir, line + at, n);
		if (S_ISDIR(mode)) load_dir(n);
		else if (n->nlink == 1) load_file(n);
	}
	free(line);
	fclose(f);
}

/* Deletes objects no synced name reaches, and half-written listings. */
static void collect_garbage(void)
{
	DIR *d = fdopendir(dup(backing));
	if (!d) die("list the backing directory");
	struct dirent *de;
	while ((de = readdir(d))) {
		char kind[8];
		unsigned long ino;
		int end = 0;
		if (de->d_name[0] == '.') continue;
		bool live = sscanf(de->d_name, "%4[a-z]-%lu%n", kind, &ino, &end) == 2 && de->d_name[end] == '\0' &&
			    node_get(ino) && strcmp(kind, S_ISDIR(node_get(ino)->mode) ? "dir" : "file") == 0;
		if (!live && unlinkat(backing, de->d_name, 0) < 0) die("remove an unreachable object");
	}
	closedir(d);
}

/* ---- FUSE operations ---- */

static void fill_attr(const struct node *n, struct stat *st)
{
	memset(st, 0, sizeof *st);
	st->st_ino = n->ino;
	st->st_mode = n->mode;
	st->st_nlink = n->nlink;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_size = S_ISDIR(n->mode) ? BLOCK : (off_t)n->size;
	st->st_blksize = BLOCK;
	st->st_blocks = (st->st_size + 511) / 512;
	st->st_atim = st->st_mtim = n->mtime;
	st->st_ctim = n->ctime;
}

static void reply_entry(fuse_req_t req, const struct node *n, struct fuse_file_info *fi)
{
	struct fuse_entry_param e;
	memset(&e, 0, sizeof e);
	e.ino = n->ino;
	e.attr_timeout = e.entry_timeout = CACHE_SECONDS;
	fill_attr(n, &e.attr);
	if (fi) fuse_reply_create(req, &e, fi);
	else fuse_reply_entry(req, &e);
}

/* The node of a request, or NULL once the request was answered with the error. */
static struct node *node_arg(fuse_req_t req, fuse_ino_t ino)
{
	struct node *n = node_get(ino);
	if (!n) fuse_reply_err(req, ENOENT);
	return n;
}

static struct node *dir_arg(fuse_req_t req, fuse_ino_t ino)
{
	struct node *dir = node_arg(req, ino);
	if (dir && !S_ISDIR(dir->mode)) {
		fuse_reply_err(req, ENOTDIR);
		return NULL;
	}
	return dir;
}

/* A listing holds one name per line. */
static bool bad_name(fuse_req_t req, const char *name)
{
	if (!strchr(name, '\n')) return false;
	fuse_reply_err(req, EINVAL);
	return true;
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* Every change passes through the kernel, so its cache never needs dropping on a new mtime. */
	conn->want &= ~FUSE_CAP_AUTO_INVAL_DATA;
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *dir = dir_arg(req, parent);
	if (!dir) return;
	struct entry *e = find_entry(dir, name, NULL);
	if (!e) fuse_reply_err(req, ENOENT);
	else reply_entry(req, e->node, NULL);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	struct node *n = node_arg(req, ino);
	if (!n) return;
	struct stat st;
	fill_attr(n, &st);
	fuse_reply_attr(req, &st, CACHE_SECONDS);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi)
{
	(void)fi;
	struct node *n = node_arg(req, ino);
	if (!n) return;
	if (to_set & FUSE_SET_ATTR_SIZE) {
		int err = S_ISDIR(n->mode) ? EISDIR : file_resize(n, (size_t)attr->st_size);
		if (err) {
			fuse_reply_err(req, err);
			return;
		}
	}
	if (to_set & FUSE_SET_ATTR_MODE) n->mode = (n->mode & S_IFMT) | (attr->st_mode & 07777);
	if (to_set & FUSE_SET_ATTR_MTIME) n->mtime = attr->st_mtim;
	if (to_set & FUSE_SET_ATTR_MTIME_NOW) n->mtime = now();
	n->ctime = now();
	op_getattr(req, ino, NULL);
}

static void make_node(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi)
{
	struct node *dir = dir_arg(req, parent);
	if (!dir || bad_name(req, name)) return;
	if (find_entry(dir, name, NULL)) {
		fuse_reply_err(req, EEXIST);
		return;
	}
	struct node *n = node_new(next_ino, mode);
	add_entry(dir, name, n);
	if (fi) {
		n->open++;
		fi->keep_cache = 1;
	}
	reply_entry(req, n, fi);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi)
{
	make_node(req, parent, name, S_IFREG | (mode & 07777), fi);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	make_node(req, parent, name, S_IFDIR | (mode & 07777), NULL);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *dir = dir_arg(req, parent);
	if (!dir) return;
	struct entry **link;
	struct entry *e = find_entry(dir, name, &link);
	if (!e) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	if (S_ISDIR(e->node->mode)) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	struct node *n = e->node;
	remove_entry(dir, link);
	maybe_free_data(n);
	fuse_reply_err(req, 0);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *dir = dir_arg(req, parent);
	if (!dir) return;
	struct entry **link;
	struct entry *e = find_entry(dir, name, &link);
	if (!e) fuse_reply_err(req, ENOENT);
	else if (!S_ISDIR(e->node->mode)) fuse_reply_err(req, ENOTDIR);
	else if (e->node->entries) fuse_reply_err(req, ENOTEMPTY);
	else {
		e->node->nlink = 0;
		e->node->parent = NULL;
		remove_entry(dir, link);
		fuse_reply_err(req, 0);
	}
}

static bool is_within(const struct node *n, const struct node *dir)
{
	for (; n; n = n->parent)
		if (n == dir) return true;
	return false;
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
		      unsigned int flags)
{
	struct node *from = dir_arg(req, parent);
	if (!from) return;
	struct node *to = dir_arg(req, newparent);
	if (!to || bad_name(req, newname)) return;
	if (flags & ~RENAME_NOREPLACE) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	struct entry **link, **target_link;
	struct entry *e = find_entry(from, name, &link);
	if (!e) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	struct node *n = e->node;
	struct entry *target = find_entry(to, newname, &target_link);
	int err = 0;
	if (target && (flags & RENAME_NOREPLACE)) err = EEXIST;
	else if (S_ISDIR(n->mode) && is_within(to, n)) err = EINVAL;
	else if (target && target->node != n) {
		if (S_ISDIR(n->mode) && !S_ISDIR(target->node->mode)) err = ENOTDIR;
		else if (!S_ISDIR(n->mode) && S_ISDIR(target->node->mode)) err = EISDIR;
		else if (target->node->entries) err = ENOTEMPTY;
	}
	if (err || (target && target->node == n)) {
		fuse_reply_err(req, err);
		return;
	}
	if (target) {
		struct node *old = target->node;
		if (S_ISDIR(old->mode)) old->nlink = 0;
		remove_entry(to, target_link);
		maybe_free_data(old);
		find_entry(from, name, &link); /* the removal may have moved the source's link */
	}
	remove_entry(from, link);
	add_entry(to, newname, n);
	fuse_reply_err(req, 0);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_arg(req, ino);
	if (!n) return;
	if (fi->flags & O_TRUNC) file_resize(n, 0);
	n->open++;
	fi->keep_cache = 1;
	fuse_reply_open(req, fi);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	struct node *n = node_get(ino);
	if (n && n->open > 0) {
		n->open--;
		maybe_free_data(n);
	}
	fuse_reply_err(req, 0);
}

/* flush (close) and releasedir: nothing to do, and closing never syncs. */
static void op_nothing(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)ino;
	(void)fi;
	fuse_reply_err(req, 0);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	struct node *n = node_arg(req, ino);
	if (!n) return;
	if ((size_t)off >= n->size) size = 0;
	else if (size > n->size - (size_t)off) size = n->size - (size_t)off;
	fuse_reply_buf(req, size ? n->data + off : NULL, size);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	struct node *n = node_arg(req, ino);
	if (!n) return;
	size_t end = (size_t)off + size;
	if (end > n->size) {
		int err = file_resize(n, end);
		if (err) {
			fuse_reply_err(req, err);
			return;
		}
	}
	memcpy(n->data + off, buf, size);
	mark_dirty(n, (size_t)off, end);
	n->mtime = n->ctime = now();
	fuse_reply_write(req, size);
}

static void finish_sync(fuse_req_t req, struct node *n)
{
	fuse_reply_err(req, S_ISDIR(n->mode) ? persist_dir(n) : persist_file(n));
}

static void schedule_sync(fuse_req_t req, fuse_ino_t ino)
{
	struct node *n = node_arg(req, ino);
	if (!n) return;
	if (sync_delay_ms == 0) {
		finish_sync(req, n);
		return;
	}
	struct pending_sync *p = xrealloc(NULL, sizeof *p);
	p->req = req;
	p->node = n;
	p->due = now();
	p->due.tv_nsec += sync_delay_ms % 1000 * 1000000;
	p->due.tv_sec += sync_delay_ms / 1000 + p->due.tv_nsec / 1000000000;
	p->due.tv_nsec %= 1000000000;
	p->next = NULL;
	if (pending_tail) pending_tail->next = p;
	else pending_head = p;
	pending_tail = p;
	/* A test that cuts the power during a sync waits for this line, not for a guessed time. */
	printf("lazyfs: sync held\n");
	fflush(stdout);
}

/* fsync and fdatasync of a file, and fsync of a directory. */
static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
	(void)datasync;
	(void)fi;
	schedule_sync(req, ino);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (dir_arg(req, ino)) fuse_reply_open(req, fi);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	(void)fi;
	struct node *dir = dir_arg(req, ino);
	if (!dir) return;
	char *buf = xrealloc(NULL, size);
	size_t used = 0;
	off_t index = 0;
	struct entry *e = dir->entries;
	for (;; index++) {
		const char *name;
		const struct node *n;
		if (index == 0) name = ".", n = dir;
		else if (index == 1) name = "..", n = dir->parent ? dir->parent : dir;
		else if (e) name = e->name, n = e->node, e = e->next;
		else break;
		if (index < off) continue;
		struct stat st;
		fill_attr(n, &st);
		size_t len = fuse_add_direntry(req, buf + used, size - used, name, &st, index + 1);
		if (len > size - used) break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	(void)ino;
	struct statvfs st;
	if (fstatvfs(backing, &st) < 0) fuse_reply_err(req, errno);
	else fuse_reply_statfs(req, &st);
}

static const struct fuse_lowlevel_ops ops = {
	.init = op_init,
	.lookup = op_lookup,
	.getattr = op_getattr,
	.setattr = op_setattr,
	.mkdir = op_mkdir,
	.unlink = op_unlink,
	.rmdir = op_rmdir,
	.rename = op_rename,
	.open = op_open,
	.read = op_read,
	.write = op_write,
	.flush = op_nothing,
	.release = op_release,
	.fsync = op_fsync,
	.opendir = op_opendir,
	.readdir = op_readdir,
	.releasedir = op_nothing,
	.fsyncdir = op_fsync,
	.statfs = op_statfs,
	.create = op_create,
};

/* ---- the event loop: FUSE requests, and delayed syncs as they fall due ---- */

static int ms_until_next_sync(void)
{
	if (!pending_head) return -1;
	struct timespec t = now();
	long long ms = (pending_head->due.tv_sec - t.tv_sec) * 1000LL + (pending_head->due.tv_nsec - t.tv_nsec) / 1000000;
	return ms < 0 ? 0 : (int)ms + 1;
}

static void finish_due_syncs(void)
{
	struct timespec t = now();
	while (pending_head && (pending_head->due.tv_sec < t.tv_sec ||
				(pending_head->due.tv_sec == t.tv_sec && pending_head->due.tv_nsec <= t.tv_nsec))) {
		struct pending_sync *p = pending_head;
		pending_head = p->next;
		if (!pending_head) pending_tail = NULL;
		finish_sync(p->req, p->node);
		free(p);
	}
}

static int serve(struct fuse_session *se)
{
	struct fuse_buf buf = { .mem = NULL };
	int res = 0;
	while (!fuse_session_exited(se)) {
		struct pollfd p = { .fd = fuse_session_fd(se), .events = POLLIN };
		int ready = poll(&p, 1, ms_until_next_sync());
		if (ready < 0 && errno != EINTR) {
			res = -errno;
			break;
		}
		finish_due_syncs();
		if (ready <= 0 || !(p.revents & POLLIN)) continue;
		res = fuse_session_receive_buf(se, &buf);
		if (res == -EINTR || res == -EAGAIN) continue;
		if (res <= 0) break;
		fuse_session_process_buf(se, &buf);
	}
	free(buf.mem);
	return res < 0 && res != -ENODEV ? res : 0;
}

int main(int argc, char **argv)
{
	int arg = 1;
	if (argc > 2 && strcmp(argv[1], "--sync-delay-ms") == 0) {
		sync_delay_ms = strtol(argv[2], NULL, 10);
		arg = 3;
	}
	if (argc - arg != 2 || sync_delay_ms < 0) {
		fprintf(stderr, "usage: lazyfs [--sync-delay-ms N] BACKING MOUNTPOINT\n");
		return 2;
	}
	/* Should the test runner die, unmount rather than leave a mount behind. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);

	backing = open(argv[arg], O_RDONLY | O_DIRECTORY);
	if (backing < 0) die(argv[arg]);
	struct node *root = node_new(FUSE_ROOT_ID, S_IFDIR | 0755);
	load_dir(root);
	collect_garbage();
	if (persist_dir(root)) die("write the root listing");

	char *fuse_argv[] = { argv[0], "-o", "fsname=lazyfs,subtype=lazyfs", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
	struct fuse_session *se = fuse_session_new(&args, &ops, sizeof ops, NULL);
	if (!se) return 1;
	if (fuse_set_signal_handlers(se) != 0) return 1;
	if (fuse_session_mount(se, argv[arg + 1]) != 0) return 1;
	printf("lazyfs: mounted %s\n", argv[arg + 1]);
	fflush(stdout);
	int res = serve(se);
	fuse_session_unmount(se);
	fuse_remove_signal_handlers(se);
	fuse_session_destroy(se);
	return res ? 1 : 0;
}
