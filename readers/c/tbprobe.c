/* tbprobe.c: a reader of tablebase probe indexes (docs/format.md, format 2), in C99 with POSIX mmap.
 *
 *     cc -O2 -std=c99 -Wall -Werror -c tbprobe.c                        # the reader
 *     cc -O2 -std=c99 -Wall -Werror -DTBPROBE_MAIN -o tbprobe tbprobe.c  # and its command:
 *     tbprobe INDEX KEY...        one JSON object a key: {"key": K, "found": true, "grundy": 3, ...}
 *     tbprobe --check INDEX       every segment checked: {"segments": N, "damaged": 0, "figures": [...], ...}
 *     tbprobe --time INDEX COUNT  COUNT probes of random keys of the segments, timed: {"probes": ..., ...}
 *
 * The command's bad input (a bad key, a file that is no index, a damaged one) is one line on stderr and
 * exit status 2. Every check below is one of docs/format.md's "What a reader must check", in its order;
 * sums and products of numbers from a file go through add() and mul(), which refuse to overflow.
 */
#define _POSIX_C_SOURCE 200809L

#include "tbprobe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXED 64          /* the directory's fixed part, and a segment's */
#define FIGURE_BYTES 48
#define FIGURE_NAME 32
#define FILE_NAME_BYTES 48
#define ENTRY_BYTES 32
#define FIELD_BYTES 32
#define TAIL 8            /* zero bytes after a segment's last section */
#define MAX_FIELDS 64
#define MAX_ABOUT 65536
#define MAX_NESTING 8
#define GROUP 512         /* records a count of long codes stands for (coding two widths) */
#define NONE UINT64_MAX
#define NO_FIELD 0xFFFFu

enum { STORED = 1, DERIVED = 2 };
enum { AS_IS = 0, HALVED = 1, OUTCOME_OF_GRUNDY = 1, BY_CHILDREN = 2 };
enum { UNSIGNED = 2, HAS_NULLS = 1 };
enum { DENSE = 1, SPARSE = 2 };
enum { FIELDS = 1, DICTIONARY = 2, TWO_WIDTHS = 3 };
enum { OFFSET = 1, LISTED = 2, RAW = 3 };

typedef struct {
    char name[FIGURE_NAME];  /* NUL-terminated: the directory's 32 bytes hold at most 31 and a NUL */
    int type, source, rule, is_unsigned;
    unsigned field, reads;   /* its field (stored), the figure its rule reads (or NO_FIELD) */
} figure;

typedef struct {
    int encoding, width, nulls;
    uint32_t offset;         /* bit offset in an entry */
    uint64_t base, null, items;
    uint64_t dictionary;     /* where its dictionary starts in the segment (encoding dictionary) */
    uint64_t texts, last;    /* a text dictionary: where its texts start, and its last offset */
} field;

typedef struct {
    const uint8_t *data;     /* the segment's first byte, in its file's mapping */
    uint8_t *copy;           /* built with -DTBPROBE_COPY_SEGMENTS: data is this copy of the segment alone */
    uint64_t first, last, slots, absent, entries, longs, codes_bits;
    int layout, coding, key_bytes, entry_bits, long_bits, short_bits;
    uint64_t keys, records, marks, counts, codes, dictionary;  /* where each section starts in the segment */
    field field[];           /* the directory's S */
} segment;

typedef struct {
    const uint8_t *data;
    size_t size;
    int state;               /* 0 not mapped yet, 1 mapped (data NULL for an empty file), -1 could not be */
} segment_file;

struct tb_index {
    uint8_t *directory;      /* the whole directory file, read */
    size_t size;
    char *folder;            /* "<the directory's folder>/probe/", where the segment files are */
    size_t folder_length;
    char *path;
    int figures, stored;
    figure *figure;
    int of_field[MAX_FIELDS];  /* the figure each field stores */
    uint64_t segments, positions;
    uint32_t files;
    const uint8_t *about, *names, *firsts, *entries;
    size_t about_bytes;
    segment_file *file;
    segment **segment;       /* each segment once checked, or NULL */
    unsigned char *damaged;  /* each segment found damaged */
    uint32_t crc_table[256];
    char error[320];
};

/* -- numbers --------------------------------------------------------------------------------- */
static uint64_t le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A little-endian host loads the numbers as they are: a probe's binary searches are mostly these loads. */
static uint64_t load64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static uint64_t load_key(const uint8_t *p, int bytes) {
    uint32_t w;
    uint16_t h;
    switch (bytes) {
    case 8: return load64(p);
    case 4: memcpy(&w, p, 4); return w;
    case 2: memcpy(&h, p, 2); return h;
    default: return p[0];
    }
}
#else
static uint64_t load64(const uint8_t *p) { return le(p, 8); }
static uint64_t load_key(const uint8_t *p, int bytes) { return le(p, bytes); }
#endif

/* a + b and a * b, or 0 (refused) where the result would not fit in 64 bits. */
static int add(uint64_t a, uint64_t b, uint64_t *out) {
    if (a > UINT64_MAX - b) return 0;
    *out = a + b;
    return 1;
}

static int mul(uint64_t a, uint64_t b, uint64_t *out) {
    if (b != 0 && a > UINT64_MAX / b) return 0;
    *out = a * b;
    return 1;
}

static int pad8(uint64_t x, uint64_t *out) {
    if (x > UINT64_MAX - 7) return 0;
    *out = (x + 7) & ~(uint64_t)7;
    return 1;
}

/* The width-bit field (0 to 64) at bit `bit` of the bit string at p, least significant bit first.
 * Nine bytes from byte bit / 8 hold it; the checks keep them inside the segment. */
static uint64_t field_at(const uint8_t *p, uint64_t bit, int width) {
    if (width == 0) return 0;
    const uint8_t *q = p + (bit >> 3);
    unsigned shift = (unsigned)(bit & 7);
    uint64_t v = load64(q) >> shift;
    if (shift + (unsigned)width > 64) v |= (uint64_t)q[8] << (64 - shift);
    return width == 64 ? v : v & ((UINT64_C(1) << width) - 1);
}

static int popcount64(uint64_t x) {
    x = x - ((x >> 1) & UINT64_C(0x5555555555555555));
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

/* CRC-32 as zlib computes it, a bit at a time: what the table below is made of. */
static uint32_t tb_crc32(const uint8_t *p, size_t n, uint32_t crc) {
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (UINT32_C(0xEDB88320) & (0u - (crc & 1)));
    }
    return ~crc;
}

/* The same a byte at a time, from a table of each byte's CRC (a segment's first check reads all of it). */
static uint32_t crc32_of(const tb_index *x, const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    while (n--) crc = x->crc_table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}

/* -- errors ---------------------------------------------------------------------------------- */
static void say(char *error, size_t size, const char *format, va_list args) {
    if (error && size) vsnprintf(error, size, format, args);
}

/* The index damaged: its one line in tb_error(); -1 for the caller to return. */
static int damaged(tb_index *x, const char *format, ...) {
    char what[200];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    snprintf(x->error, sizeof x->error, "%s: damaged probe index (%s)", x->path, what);
    return -1;
}

/* -- the directory --------------------------------------------------------------------------- */
typedef struct { const uint8_t *p, *end; } cursor;

static void blank(cursor *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int take(cursor *c, char wanted) {
    blank(c);
    if (c->p < c->end && *c->p == (uint8_t)wanted) {
        c->p++;
        return 1;
    }
    return 0;
}

static int word(cursor *c, const char *text) {
    size_t n = strlen(text);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, text, n) != 0) return 0;
    c->p += n;
    return 1;
}

static int digits(cursor *c) {
    const uint8_t *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') c->p++;
    return c->p > start;
}

static int json_string(cursor *c) {
    if (!take(c, '"')) return 0;
    while (c->p < c->end) {
        uint8_t b = *c->p++;
        if (b == '"') return 1;
        if (b < 0x20) return 0;
        if (b != '\\') continue;
        if (c->p >= c->end) return 0;
        b = *c->p++;
        if (b == 'u') {
            for (int i = 0; i < 4; i++, c->p++)
                if (c->p >= c->end || !strchr("0123456789abcdefABCDEF", *c->p) || *c->p == 0) return 0;
        } else if (b == 0 || !strchr("\"\\/bfnrt", b)) {
            return 0;
        }
    }
    return 0;
}

static int json_number(cursor *c) {
    if (c->p < c->end && *c->p == '-') c->p++;
    if (c->p < c->end && *c->p == '0') c->p++;
    else if (!digits(c)) return 0;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!digits(c)) return 0;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-')) c->p++;
        if (!digits(c)) return 0;
    }
    return 1;
}

/* One JSON value with at most MAX_NESTING objects and arrays open, `open` of them already (so the
 * recursion is at most that deep). */
static int json_value(cursor *c, int open) {
    blank(c);
    if (c->p >= c->end) return 0;
    uint8_t b = *c->p;
    if (b == '{' || b == '[') {
        char close = b == '{' ? '}' : ']';
        if (open >= MAX_NESTING) return 0;
        c->p++;
        if (take(c, close)) return 1;
        do {
            if (b == '{' && !(json_string(c) && take(c, ':'))) return 0;
            if (!json_value(c, open + 1)) return 0;
        } while (take(c, ','));
        return take(c, close);
    }
    if (b == '"') return json_string(c);
    if (b == 't') return word(c, "true");
    if (b == 'f') return word(c, "false");
    if (b == 'n') return word(c, "null");
    return json_number(c);
}

/* Whether bytes are UTF-8 as Python decodes it strictly: no overlong forms, surrogates or codes past
 * U+10FFFF. */
static int utf8(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint8_t b = p[i];
        int more;
        uint32_t code, least;
        if (b < 0x80) { i++; continue; }
        if ((b & 0xE0) == 0xC0) more = 1, code = b & 0x1F, least = 0x80;
        else if ((b & 0xF0) == 0xE0) more = 2, code = b & 0x0F, least = 0x800;
        else if ((b & 0xF8) == 0xF0) more = 3, code = b & 0x07, least = 0x10000;
        else return 0;
        if (n - i <= (size_t)more) return 0;
        for (size_t k = 1; k <= (size_t)more; k++) {
            if ((p[i + k] & 0xC0) != 0x80) return 0;
            code = code << 6 | (p[i + k] & 0x3F);
        }
        if (code < least || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return 0;
        i += (size_t)more + 1;
    }
    return 1;
}

static int about_is_an_object(const uint8_t *p, size_t n) {
    if (n > MAX_ABOUT || !utf8(p, n)) return 0;
    cursor c = {p, p + n};
    blank(&c);
    if (c.p >= c.end || *c.p != '{' || !json_value(&c, 0)) return 0;
    blank(&c);
    return c.p == c.end;
}

static int compare_names(const void *a, const void *b) {
    return memcmp(*(const uint8_t *const *)a, *(const uint8_t *const *)b, FILE_NAME_BYTES);
}

static int compare_figure_names(const void *a, const void *b) {
    return strcmp(((const figure *const *)a)[0]->name, ((const figure *const *)b)[0]->name);
}

/* Whether some two of `count` items (pointers into the directory, or figures) are alike: sorted, so
 * that many names cost n log n, not n squared. */
static int repeated(const void **items, size_t count, int (*compare)(const void *, const void *)) {
    qsort(items, count, sizeof *items, compare);
    for (size_t i = 1; i < count; i++)
        if (compare(&items[i - 1], &items[i]) == 0) return 1;
    return 0;
}

static const char *read_figures(tb_index *x, const uint8_t *at) {
    for (int f = 0; f < x->figures; f++, at += FIGURE_BYTES) {
        figure *g = &x->figure[f];
        size_t n = 0;
        while (n < FIGURE_NAME && at[n]) n++;
        if (n == 0 || n == FIGURE_NAME) return "a figure's name is not 1 to 31 bytes";
        for (size_t k = n; k < FIGURE_NAME; k++)
            if (at[k]) return "a figure's name is not NUL-padded";
        if (!utf8(at, n)) return "a figure's name is not UTF-8";
        memcpy(g->name, at, n);
        g->name[n] = 0;
        g->type = at[32], g->source = at[33], g->rule = at[34], g->is_unsigned = (at[35] & UNSIGNED) != 0;
        g->field = (unsigned)le(at + 36, 2), g->reads = (unsigned)le(at + 38, 2);
        if (at[35] & ~UNSIGNED) return "a figure's flags";
        for (int k = 40; k < 48; k++)
            if (at[k]) return "a figure's reserved bytes";
    }
    if (x->stored < 1 || x->stored > x->figures || x->stored > MAX_FIELDS) return "the number of stored figures";
    const void **names = malloc(sizeof *names * (size_t)x->figures);
    if (!names) return "out of memory";
    for (int f = 0; f < x->figures; f++) names[f] = &x->figure[f];
    int twice = repeated(names, (size_t)x->figures, compare_figure_names);
    free(names);
    if (twice) return "two figures of one name";
    for (int i = 0; i < MAX_FIELDS; i++) x->of_field[i] = -1;
    for (int f = 0; f < x->figures; f++) {
        const figure *g = &x->figure[f];
        int ok;
        if (g->type < TB_INTEGER || g->type > TB_BOOLEAN) return "a figure's type";
        if (g->source == STORED) {
            ok = g->field < (unsigned)x->stored && x->of_field[g->field] < 0 &&
                 ((g->rule == AS_IS && g->reads == NO_FIELD) ||
                  (g->rule == HALVED && g->type == TB_INTEGER && g->reads != NO_FIELD));
            if (ok) x->of_field[g->field] = f;
        } else if (g->source == DERIVED) {
            ok = g->field == NO_FIELD &&
                 ((g->rule == OUTCOME_OF_GRUNDY && g->type == TB_TEXT && g->reads != NO_FIELD) ||
                  (g->rule == BY_CHILDREN && g->reads == NO_FIELD));
        } else {
            ok = 0;
        }
        if (ok && g->reads != NO_FIELD) {
            const figure *r = g->reads < (unsigned)x->figures ? &x->figure[g->reads] : NULL;
            ok = r && r != g && r->source == STORED && r->type == TB_INTEGER && r->rule == AS_IS;
        }
        if (!ok) return "a figure's source, rule or field";
    }
    for (int i = 0; i < x->stored; i++)
        if (x->of_field[i] < 0) return "a field no figure names";
    return NULL;
}

static int file_name_ok(const uint8_t *p) {
    size_t n = 0;
    while (n < FILE_NAME_BYTES && p[n]) {
        uint8_t c = p[n];
        int letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!letter && c != '.' && c != '_' && c != '-') return 0;
        n++;
    }
    if (n == 0 || n == FILE_NAME_BYTES || p[0] == '.') return 0;
    for (size_t k = n; k < FILE_NAME_BYTES; k++)
        if (p[k]) return 0;
    return 1;
}

static const char *read_segments(tb_index *x) {
    for (uint64_t i = 0; i < x->segments; i++) {
        const uint8_t *e = x->entries + ENTRY_BYTES * i;
        uint64_t first = load64(x->firsts + 8 * i), last = load64(e), offset = load64(e + 8);
        uint64_t length = load64(e + 16), file = le(e + 24, 4);
        if (last < first || (i + 1 < x->segments && last >= load64(x->firsts + 8 * (i + 1))) ||
            file >= x->files || offset % 8 != 0)
            return "a segment's keys, file or offset";
        if (length < FIXED + TAIL) return "a segment shorter than its fixed part";
    }
    return NULL;
}

/* Open a regular file to read, never waiting on one that is not (a pipe would block). */
static int open_regular(const char *path, struct stat *st) {
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) return -1;
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        close(fd);
        errno = EINVAL;
        return -2;
    }
    return fd;
}

static int read_all(int fd, uint8_t *into, size_t n) {
    while (n) {
        ssize_t got = read(fd, into, n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        into += got, n -= (size_t)got;
    }
    return 1;
}

static tb_index *refuse(tb_index *x, char *error, size_t size, const char *format, ...) {
    va_list args;
    va_start(args, format);
    say(error, size, format, args);
    va_end(args);
    tb_close(x);
    return NULL;
}

tb_index *tb_open(const char *path, char *error, size_t error_size) {
    tb_index *x = calloc(1, sizeof *x);
    if (!x) return refuse(x, error, error_size, "%s: out of memory", path);
    size_t path_length = strlen(path);
    x->path = malloc(path_length + 1);
    if (!x->path) return refuse(x, error, error_size, "%s: out of memory", path);
    memcpy(x->path, path, path_length + 1);
    for (uint32_t b = 0; b < 256; b++) {  /* each byte's CRC, from the bitwise CRC above */
        uint8_t byte = (uint8_t)b;
        x->crc_table[b] = ~tb_crc32(&byte, 1, 0xFFFFFFFFu);
    }
    struct stat st;
    int fd = open_regular(path, &st);
    if (fd < 0)
        return refuse(x, error, error_size, "%s: cannot open the probe index (%s)", path,
                      fd == -2 ? "not a regular file" : strerror(errno));
    uint8_t fixed[FIXED];
    if (st.st_size < FIXED + 4 || !read_all(fd, fixed, FIXED) || memcmp(fixed, "\x89TBP\r\n\x1a\n", 8) != 0) {
        close(fd);
        return refuse(x, error, error_size, "%s: not a probe index (no magic number)", path);
    }
    if (le(fixed + 8, 2) != 2) {
        close(fd);
        return refuse(x, error, error_size, "%s: probe index format %u, this reader reads 2; write it again "
                      "with tablebase index", path, (unsigned)le(fixed + 8, 2));
    }
    if (le(fixed + 10, 2) != 0xFEFF) {
        close(fd);
        return refuse(x, error, error_size, "%s: numbers are not little-endian (byte-order mark %#06x)", path,
                      (unsigned)le(fixed + 10, 2));
    }
    uint64_t total = le(fixed + 12, 4);
    if ((uint64_t)st.st_size != total) {
        close(fd);
        return refuse(x, error, error_size, "%s: damaged probe index (%llu bytes said, %llu in the file)", path,
                      (unsigned long long)total, (unsigned long long)st.st_size);
    }
    x->size = (size_t)total;  /* below 2^32: a u32 said it */
    x->directory = malloc(x->size);
    if (!x->directory) {
        close(fd);
        return refuse(x, error, error_size, "%s: out of memory", path);
    }
    memcpy(x->directory, fixed, FIXED);
    int whole = read_all(fd, x->directory + FIXED, x->size - FIXED);
    close(fd);
    if (!whole) return refuse(x, error, error_size, "%s: cannot read the probe index", path);
    const uint8_t *d = x->directory;
    if (crc32_of(x, d, x->size - 4) != le(d + x->size - 4, 4))
        return refuse(x, error, error_size, "%s: damaged probe index (the directory's CRC-32 differs)", path);

    /* 2. the parts add up to the file, each tested against the size before it is added */
    uint64_t about_bytes = le(d + 20, 4), segments = load64(d + 24), files = le(d + 40, 4);
    x->figures = (int)le(d + 16, 2), x->stored = (int)le(d + 18, 2), x->positions = load64(d + 32);
    uint64_t at, parts = 0;
    int sums = pad8(FIXED + about_bytes, &at) && mul(FIGURE_BYTES, (uint64_t)x->figures, &parts) &&
               add(at, parts, &at) && mul(FILE_NAME_BYTES, files, &parts) && add(at, parts, &at) &&
               segments <= total / (8 + ENTRY_BYTES) && add(at, (8 + ENTRY_BYTES) * segments + 4, &at);
    int reserved = 0;
    for (int k = 44; k < 64; k++) reserved |= d[k];
    if (!sums || at != total || reserved)
        return refuse(x, error, error_size, "%s: damaged probe index (the directory's parts do not add up to "
                      "its size)", path);
    x->segments = segments, x->files = (uint32_t)files;
    x->about = d + FIXED, x->about_bytes = (size_t)about_bytes;
    const uint8_t *figures = d + FIXED + ((about_bytes + 7) & ~(uint64_t)7);
    x->names = figures + FIGURE_BYTES * (size_t)x->figures;
    x->firsts = x->names + FILE_NAME_BYTES * (size_t)files;
    x->entries = x->firsts + 8 * (size_t)segments;

    /* 3. about; 4. figures; 5. file names; 6. segments: each count here is of items the file holds */
    if (!about_is_an_object(x->about, x->about_bytes))
        return refuse(x, error, error_size, "%s: damaged probe index (what the table holds is not a JSON object "
                      "of at most 64 KiB nested at most 8 deep)", path);
    x->figure = calloc((size_t)x->figures ? (size_t)x->figures : 1, sizeof *x->figure);
    if (!x->figure) return refuse(x, error, error_size, "%s: out of memory", path);
    const char *problem = read_figures(x, figures);
    if (problem) return refuse(x, error, error_size, "%s: damaged probe index (%s)", path, problem);
    const void **names = malloc(sizeof *names * (files ? (size_t)files : 1));
    if (!names) return refuse(x, error, error_size, "%s: out of memory", path);
    int bad_name = 0;
    for (uint32_t i = 0; i < files; i++) {
        names[i] = x->names + FILE_NAME_BYTES * (size_t)i;
        bad_name |= !file_name_ok(names[i]);
    }
    bad_name = bad_name || repeated(names, (size_t)files, compare_names);
    free(names);
    if (bad_name) return refuse(x, error, error_size, "%s: damaged probe index (a segment file's name)", path);
    problem = read_segments(x);
    if (problem) return refuse(x, error, error_size, "%s: damaged probe index (%s)", path, problem);

    x->file = calloc(files ? (size_t)files : 1, sizeof *x->file);
    x->segment = calloc(segments ? (size_t)segments : 1, sizeof *x->segment);
    x->damaged = calloc(segments ? (size_t)segments : 1, 1);
    const char *slash = strrchr(path, '/');
    size_t folder = slash ? (size_t)(slash - path) + 1 : 0;
    x->folder = malloc(folder + sizeof "probe/" + FILE_NAME_BYTES);
    if (!x->file || !x->segment || !x->damaged || !x->folder)
        return refuse(x, error, error_size, "%s: out of memory", path);
    memcpy(x->folder, path, folder);
    memcpy(x->folder + folder, "probe/", sizeof "probe/");
    x->folder_length = folder + sizeof "probe/" - 1;
    return x;
}

void tb_close(tb_index *x) {
    if (!x) return;
    if (x->segment)
        for (uint64_t i = 0; i < x->segments; i++) {
            if (x->segment[i]) free(x->segment[i]->copy);
            free(x->segment[i]);
        }
    if (x->file)
        for (uint32_t i = 0; i < x->files; i++)
            if (x->file[i].data) munmap((void *)x->file[i].data, x->file[i].size);
    free(x->segment);
    free(x->damaged);
    free(x->file);
    free(x->figure);
    free(x->folder);
    free(x->directory);
    free(x->path);
    free(x);
}

int tb_figures(const tb_index *x) { return x->figures; }
const char *tb_figure_name(const tb_index *x, int f) { return f >= 0 && f < x->figures ? x->figure[f].name : NULL; }
int tb_figure_type(const tb_index *x, int f) { return f >= 0 && f < x->figures ? x->figure[f].type : 0; }
uint64_t tb_positions(const tb_index *x) { return x->positions; }
uint64_t tb_segments(const tb_index *x) { return x->segments; }
const char *tb_error(const tb_index *x) { return x->error; }

int tb_figure_available(const tb_index *x, int f) {
    return f >= 0 && f < x->figures && !(x->figure[f].source == DERIVED && x->figure[f].rule == BY_CHILDREN);
}

const char *tb_about(const tb_index *x, size_t *length) {
    *length = x->about_bytes;
    return (const char *)x->about;
}

/* -- a segment, checked the first time it is touched ----------------------------------------- */
static const segment_file *mapped(tb_index *x, uint32_t number) {
    segment_file *f = &x->file[number];
    if (f->state == 0) {
        f->state = -1;
        const uint8_t *name = x->names + FILE_NAME_BYTES * (size_t)number;
        memcpy(x->folder + x->folder_length, name, FILE_NAME_BYTES);  /* NUL-padded: one ends it */
        struct stat st;
        int fd = open_regular(x->folder, &st);
        if (fd < 0) {
            snprintf(x->error, sizeof x->error, "%s: cannot open the probe index's segment file %s (%s)", x->path,
                     x->folder, fd == -2 ? "not a regular file" : strerror(errno));
            return NULL;
        }
        if (st.st_size < 0 || (uint64_t)st.st_size > SIZE_MAX) {
            close(fd);
            damaged(x, "segment file %s of %lld bytes", (const char *)name, (long long)st.st_size);
            return NULL;
        }
        f->size = (size_t)st.st_size;
        if (f->size) {  /* an empty file cannot be mapped: it holds no segment, as its size says */
            void *map = mmap(NULL, f->size, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map == MAP_FAILED) {
                close(fd);
                snprintf(x->error, sizeof x->error, "%s: cannot map the segment file %s", x->path, x->folder);
                return NULL;
            }
            f->data = map;
        }
        close(fd);
        f->state = 1;
    }
    if (f->state < 0) {
        snprintf(x->error, sizeof x->error, "%s: the probe index's segment file %s could not be read", x->path,
                 (const char *)(x->names + FILE_NAME_BYTES * (size_t)number));
        return NULL;
    }
    return f;
}

/* A section of `bytes` bytes placed at the next multiple of 8 from *end (offsets in the segment). */
static int place(uint64_t *end, uint64_t bytes, uint64_t *start) {
    return pad8(*end, start) && add(*start, bytes, end);
}

static uint64_t bytes_of_bits(uint64_t bits) { return bits / 8 + (bits % 8 != 0); }

/* Check 4: a field's descriptor against its figure; NULL if it is sound. */
static const char *read_field(const uint8_t *p, const figure *g, field *f) {
    f->encoding = p[0], f->width = p[1], f->nulls = (p[2] & HAS_NULLS) != 0;
    f->offset = (uint32_t)le(p + 4, 4), f->base = load64(p + 8), f->null = load64(p + 16), f->items = load64(p + 24);
    int agrees;
    switch (g->type) {
    case TB_INTEGER: case TB_BOOLEAN: agrees = f->encoding == OFFSET || f->encoding == LISTED; break;
    case TB_FLOAT: agrees = f->encoding == LISTED || f->encoding == RAW; break;
    default: agrees = f->encoding == LISTED;
    }
    if (!agrees || f->width > 64 || (f->encoding == RAW && f->width != 64) || (p[2] & ~HAS_NULLS) || p[3])
        return "a field's encoding, width or flags";
    if (f->encoding == LISTED ? f->items < 1 : f->items != 0) return "a field's dictionary";
    if (f->nulls ? (f->width < 64 && f->null >> f->width) : f->null != NONE) return "a field's null code";
    return NULL;
}

/* Check 5: the coding's numbers; NULL if they are sound. */
static const char *check_coding(const segment *s) {
    if (s->coding == FIELDS) {
        if (s->long_bits != s->entry_bits || s->entries || s->short_bits || s->longs) return "coding fields";
        if (s->absent != NONE && s->long_bits < 64 && s->absent >> s->long_bits) return "the absent code";
        return NULL;
    }
    if (s->entries < 1 || s->entry_bits > 64 || s->long_bits > 64) return "the record dictionary";
    uint64_t needed = s->entries;  /* codes the long width must tell apart: the tuples, and absent */
    if (s->absent != NONE && !add(needed, 1, &needed)) return "the record dictionary";
    if (s->long_bits < 64 && (needed - 1) >> s->long_bits) return "codes too narrow for the tuples";
    if (s->absent != NONE && s->absent != s->entries) return "the absent code";
    if (s->coding == DICTIONARY ? (s->short_bits || s->longs) : (s->short_bits >= s->long_bits || s->longs > s->slots))
        return "the codes' widths";
    return NULL;
}

/* Checks 2 to 6 of a segment of `length` bytes at p (its CRC is checked); NULL if it is sound. */
static const char *read_segment(const tb_index *x, segment *s, const uint8_t *p, uint64_t length) {
    uint64_t end = FIXED + FIELD_BYTES * (uint64_t)x->stored;
    if (length < end + TAIL) return "shorter than its fixed part and fields";
    s->layout = p[4], s->coding = p[5], s->key_bytes = p[7];
    s->slots = load64(p + 16), s->absent = load64(p + 24), s->entries = load64(p + 32);
    s->entry_bits = p[40], s->long_bits = p[41], s->short_bits = p[42], s->longs = load64(p + 48);
    int reserved = 0;
    for (int k = 43; k < 48; k++) reserved |= p[k];
    for (int k = 56; k < 64; k++) reserved |= p[k];
    if (memcmp(p, "TBS2", 4) != 0 || load64(p + 8) != s->first || p[6] != x->stored || reserved)
        return "its fixed part";
    int ok;
    if (s->layout == DENSE)  /* slots = last - first + 1, which a u64 holds unless slots is 0 */
        ok = s->key_bytes == 0 && s->slots != 0 && s->slots - 1 == s->last - s->first;
    else if (s->layout == SPARSE)
        ok = (s->key_bytes == 1 || s->key_bytes == 2 || s->key_bytes == 4 || s->key_bytes == 8) && s->slots >= 1 &&
             (s->key_bytes == 8 || (s->last - s->first) >> (8 * s->key_bytes) == 0);
    else
        ok = 0;
    if (!ok || s->coding < FIELDS || s->coding > TWO_WIDTHS) return "its layout, coding or slots";
    uint32_t bits = 0;
    for (int i = 0; i < x->stored; i++) {
        field *f = &s->field[i];
        const char *problem = read_field(p + FIXED + FIELD_BYTES * i, &x->figure[x->of_field[i]], f);
        if (problem) return problem;
        if (f->offset != bits) return "its fields out of place";
        bits += (uint32_t)f->width;
    }
    if (bits != (uint32_t)s->entry_bits) return "the bits of an entry are not its fields'";
    const char *problem = check_coding(s);
    if (problem) return problem;

    /* 6. the sections, placed one after another as their numbers say; every sum checked */
    uint64_t bytes, bits64, more, start;
    if (s->layout == SPARSE) {
        if (!mul(s->slots, (uint64_t)s->key_bytes, &bytes) || !place(&end, bytes, &start)) return "its keys";
        s->keys = start;
    }
    if (s->coding == TWO_WIDTHS) {
        uint64_t groups = s->slots / GROUP + (s->slots % GROUP != 0);
        if (!place(&end, 8 * (s->slots / 64 + (s->slots % 64 != 0)), &start)) return "its marks";
        s->marks = start;
        if (!place(&end, 8 * groups, &start)) return "its counts";
        s->counts = start;
        if (!mul(s->slots - s->longs, (uint64_t)s->short_bits, &bits64) ||
            !mul(s->longs, (uint64_t)s->long_bits, &more) || !add(bits64, more, &bits64) ||
            !place(&end, bytes_of_bits(bits64), &start))
            return "its codes";
        s->codes = start, s->codes_bits = bits64;
    } else {
        if (!mul(s->slots, (uint64_t)s->long_bits, &bits64) || !place(&end, bytes_of_bits(bits64), &start))
            return "its records";
        s->records = start;
    }
    if (s->coding != FIELDS) {
        if (!mul(s->entries, (uint64_t)s->entry_bits, &bits64) || !place(&end, bytes_of_bits(bits64), &start))
            return "its record dictionary";
        s->dictionary = start;
    }
    for (int i = 0; i < x->stored; i++) {
        field *f = &s->field[i];
        if (f->encoding != LISTED) continue;
        if (!mul(f->items, 8, &bytes) || !place(&end, bytes, &start)) return "a field's dictionary";
        f->dictionary = start;
        if (x->figure[x->of_field[i]].type != TB_TEXT) continue;
        /* the offsets, then as many bytes of text as the last says: read only once it is inside */
        if (!add(end, 8 + TAIL, &more) || more > length) return "a text dictionary's offsets";
        f->last = load64(p + end);
        f->texts = end + 8;
        if (!add(end, 8, &end) || !add(end, f->last, &end)) return "a text dictionary's texts";
    }
    if (!pad8(end, &end) || !add(end, TAIL, &end) || end != length) return "its sections do not add up to its length";
    s->data = p;
    return NULL;
}

/* Segment i, mapped and checked the first time (NULL, with tb_error said, if it is damaged). */
static const segment *touch(tb_index *x, uint64_t i) {
    if (x->segment[i]) return x->segment[i];
    if (x->damaged[i]) {
        damaged(x, "segment %llu, found damaged before", (unsigned long long)i);
        return NULL;
    }
    x->damaged[i] = 1;  /* until it is found sound */
    const uint8_t *e = x->entries + ENTRY_BYTES * i;
    uint64_t last = load64(e), offset = load64(e + 8), length = load64(e + 16);
    uint32_t number = (uint32_t)le(e + 24, 4), crc = (uint32_t)le(e + 28, 4);
    const segment_file *f = mapped(x, number);
    if (!f) return NULL;
    const char *name = (const char *)(x->names + FILE_NAME_BYTES * (size_t)number);
    if (offset > f->size || length > f->size - offset) {
        damaged(x, "segment %llu at %llu of %s, which has %llu bytes", (unsigned long long)i,
                (unsigned long long)offset, name, (unsigned long long)f->size);
        return NULL;
    }
    if (crc32_of(x, f->data + offset, (size_t)length) != crc) {
        damaged(x, "segment %llu in %s: its CRC-32 differs", (unsigned long long)i, name);
        return NULL;
    }
    segment *s = calloc(1, sizeof *s + sizeof(field) * (size_t)x->stored);
    if (!s) {
        snprintf(x->error, sizeof x->error, "%s: out of memory", x->path);
        x->damaged[i] = 0;  /* not damaged: try again */
        return NULL;
    }
    s->first = load64(x->firsts + 8 * i), s->last = last;
    const uint8_t *p = f->data + offset;
#ifdef TBPROBE_COPY_SEGMENTS  /* for the fuzzer: AddressSanitizer then sees a read past the segment, not only
                                 past the mapping */
    s->copy = malloc(length ? (size_t)length : 1);
    if (s->copy) p = memcpy(s->copy, p, (size_t)length);
#endif
    const char *problem = read_segment(x, s, p, length);
    if (problem) {
        damaged(x, "segment %llu of key %llu in %s: %s", (unsigned long long)i, (unsigned long long)s->first, name,
                problem);
        free(s->copy);
        free(s);
        return NULL;
    }
    x->damaged[i] = 0;
    x->segment[i] = s;
    return s;
}

int tb_segment(tb_index *x, uint64_t i, tb_segment_info *info) {
    if (i >= x->segments) {
        snprintf(x->error, sizeof x->error, "%s: no segment %llu", x->path, (unsigned long long)i);
        return -1;
    }
    const segment *s = touch(x, i);
    if (!s) return -1;
    info->first = s->first, info->last = s->last, info->slots = s->slots, info->dense = s->layout == DENSE;
    return 0;
}

int tb_key_at(tb_index *x, uint64_t i, uint64_t slot, uint64_t *key) {
    tb_segment_info info;
    if (tb_segment(x, i, &info) != 0) return -1;
    if (slot >= info.slots) return 0;
    const segment *s = x->segment[i];
    *key = s->first + (info.dense ? slot : load_key(s->data + s->keys + slot * (uint64_t)s->key_bytes, s->key_bytes));
    return 1;
}

uint64_t tb_check(tb_index *x) {
    uint64_t bad = 0;
    for (uint64_t i = 0; i < x->segments; i++) bad += touch(x, i) == NULL;
    return bad;
}

/* -- probing --------------------------------------------------------------------------------- */
/* The code of slot `slot` of a segment of codings two widths (codings 1 and 2 read theirs inline). */
static int two_widths_code(tb_index *x, const segment *s, uint64_t slot, uint64_t *code) {
    uint64_t group = slot / GROUP, within = slot % GROUP, marked = 0, before, bit, more;
    const uint8_t *marks = s->data + s->marks + 64 * group;
    for (uint64_t w = 0; w < within / 64; w++) marked += (uint64_t)popcount64(load64(marks + 8 * w));
    uint64_t own = load64(marks + 8 * (within / 64)), part = within % 64;
    if (part) marked += (uint64_t)popcount64(own & ((UINT64_C(1) << part) - 1));
    int width = (own >> part) & 1 ? s->long_bits : s->short_bits;
    /* the count is the file's: the long codes before a slot are at most the slots before it */
    if (!add(load64(s->data + s->counts + 8 * group), marked, &before) || before > slot ||
        !mul(slot - before, (uint64_t)s->short_bits, &bit) || !mul(before, (uint64_t)s->long_bits, &more) ||
        !add(bit, more, &bit) || !add(bit, (uint64_t)width, &more) || more > s->codes_bits)
        return damaged(x, "segment of key %llu: slot %llu's code outside the codes", (unsigned long long)s->first,
                       (unsigned long long)slot);
    *code = field_at(s->data + s->codes, bit, width);
    return 0;
}

static const uint8_t P[] = "P", N[] = "N";

/* A stored field's value, as its figure's type says; -1 if its code lies outside its dictionary. */
static int value_of(tb_index *x, const segment *s, const field *f, const figure *g, uint64_t code, tb_value *v) {
    memset(v, 0, sizeof *v);
    v->type = g->type, v->available = 1, v->is_unsigned = g->type == TB_INTEGER && g->is_unsigned;
    if (f->nulls && code == f->null) {
        v->is_null = 1;
        return 0;
    }
    uint64_t bits = code;
    if (f->encoding == OFFSET) {
        bits = f->base + code;  /* unsigned arithmetic: a signed base's two's complement */
    } else if (f->encoding == LISTED) {
        if (code >= f->items)
            return damaged(x, "segment of key %llu, field %s: code %llu of a dictionary of %llu",
                           (unsigned long long)s->first, g->name, (unsigned long long)code,
                           (unsigned long long)f->items);
        const uint8_t *item = s->data + f->dictionary + 8 * code;
        if (g->type == TB_TEXT) {
            uint64_t a = load64(item), b = load64(item + 8);
            if (a > b || b > f->last)
                return damaged(x, "segment of key %llu, field %s: text %llu at %llu..%llu",
                               (unsigned long long)s->first, g->name, (unsigned long long)code, (unsigned long long)a,
                               (unsigned long long)b);
            v->text = (const char *)s->data + f->texts + a, v->length = (size_t)(b - a);
            return 0;
        }
        bits = load64(item);
    }
    if (g->type == TB_FLOAT) memcpy(&v->f, &bits, 8);
    else if (g->type == TB_BOOLEAN) v->i = bits == 1;
    else if (v->is_unsigned) v->u = bits;
    else memcpy(&v->i, &bits, 8);
    return 0;
}

/* The figures of slot `slot`: 1, 0 where it is no position, -1 where the segment is damaged. */
static int read_slot(tb_index *x, const segment *s, uint64_t slot, tb_value *values) {
    const uint8_t *base;
    uint64_t bit;
    if (s->coding == FIELDS) {  /* the record is the code: fields read where they are, of any width */
        base = s->data + s->records, bit = slot * (uint64_t)s->long_bits;
        if (s->absent != NONE) {
            int low = s->long_bits < 64 ? s->long_bits : 64, high = 0;
            for (int at = 64; at < s->long_bits; at += 64)
                high |= field_at(base, bit + (uint64_t)at, s->long_bits - at < 64 ? s->long_bits - at : 64) != 0;
            if (!high && field_at(base, bit, low) == s->absent) return 0;
        }
    } else {
        uint64_t code = 0;
        if (s->coding == DICTIONARY)
            code = field_at(s->data + s->records, slot * (uint64_t)s->long_bits, s->long_bits);
        else if (two_widths_code(x, s, slot, &code) != 0) return -1;
        if (code == s->absent) return 0;
        if (code >= s->entries)
            return damaged(x, "segment of key %llu: tuple %llu of %llu", (unsigned long long)s->first,
                           (unsigned long long)code, (unsigned long long)s->entries);
        base = s->data + s->dictionary, bit = code * (uint64_t)s->entry_bits;
    }
    for (int f = 0; f < x->figures; f++) {
        const figure *g = &x->figure[f];
        if (g->source != STORED) continue;
        const field *d = &s->field[g->field];
        if (value_of(x, s, d, g, field_at(base, bit + d->offset, d->width), &values[f]) != 0) return -1;
    }
    for (int f = 0; f < x->figures; f++) {  /* the rules, from the stored values they read */
        const figure *g = &x->figure[f];
        tb_value *v = &values[f];
        if (g->source == STORED && g->rule == AS_IS) continue;
        if (g->source == DERIVED && g->rule == BY_CHILDREN) {
            memset(v, 0, sizeof *v);
            v->type = g->type, v->is_null = 1;
            continue;
        }
        const tb_value *grundy = &values[g->reads];
        int won = grundy->is_null || grundy->i != 0 || grundy->u != 0;  /* as the Python reader: null is not 0 */
        if (g->source == DERIVED) {  /* the outcome from the Grundy value */
            memset(v, 0, sizeof *v);
            v->type = TB_TEXT, v->available = 1, v->text = (const char *)(won ? N : P), v->length = 1;
        } else if (!v->is_null) {  /* the remoteness halved: 2 x stored + 1 where the mover wins */
            uint64_t stored = v->is_unsigned ? v->u : (uint64_t)v->i, value = 2 * stored + (uint64_t)won;
            if (v->is_unsigned) v->u = value;
            else memcpy(&v->i, &value, 8);
        }
    }
    return 1;
}

int tb_probe(tb_index *x, uint64_t key, tb_value *values) {
    uint64_t low = 0, high = x->segments;  /* the last segment whose first key is at most the key */
    while (low < high) {
        uint64_t middle = low + (high - low) / 2;
        if (load64(x->firsts + 8 * middle) <= key) low = middle + 1;
        else high = middle;
    }
    if (low == 0) return 0;
    uint64_t i = low - 1;
    if (key > load64(x->entries + ENTRY_BYTES * i)) return 0;
    const segment *s = x->segment[i] ? x->segment[i] : touch(x, i);
    if (!s) return -1;
    uint64_t slot = key - s->first;
    if (s->layout == SPARSE) {  /* a binary search of key - first among the keys listed */
        const uint8_t *keys = s->data + s->keys;
        uint64_t a = 0, b = s->slots;
        while (a < b) {
            uint64_t middle = a + (b - a) / 2;
            if (load_key(keys + middle * (uint64_t)s->key_bytes, s->key_bytes) < slot) a = middle + 1;
            else b = middle;
        }
        if (a >= s->slots || load_key(keys + a * (uint64_t)s->key_bytes, s->key_bytes) != slot) return 0;
        slot = a;
    }
    return read_slot(x, s, slot, values);
}

#ifdef TBPROBE_MAIN
#include <math.h>
#include <time.h>

/* A text as a JSON string: bytes that are not UTF-8 as U+FFFD, so that the output is always JSON. */
static void print_text(const char *p, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)p[i];
        size_t run = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
        if (run == 0 || run > n - i || !utf8((const uint8_t *)p + i, run)) {
            printf("\\ufffd");
            i++;
        } else if (run > 1) {
            fwrite(p + i, 1, run, stdout);
            i += run;
        } else {
            if (c == '"' || c == '\\') printf("\\%c", c);
            else if (c < 0x20 || c == 0x7F) printf("\\u%04x", c);
            else putchar(c);
            i++;
        }
    }
    putchar('"');
}

static void print_value(const tb_value *v) {
    if (v->is_null) printf("null");
    else if (v->type == TB_TEXT) print_text(v->text, v->length);
    else if (v->type == TB_BOOLEAN) printf(v->i ? "true" : "false");
    else if (v->type == TB_FLOAT) {
        if (isnan(v->f)) printf("NaN");
        else if (isinf(v->f)) printf(v->f > 0 ? "Infinity" : "-Infinity");
        else {
            char number[40];
            snprintf(number, sizeof number, "%.17g", v->f);
            printf("%s%s", number, strpbrk(number, ".e") ? "" : ".0");  /* a float stays a float in JSON */
        }
    } else if (v->is_unsigned) printf("%llu", (unsigned long long)v->u);
    else printf("%lld", (long long)v->i);
}

static int parse_key(const char *text, uint64_t *key) {
    if (!*text || strlen(text) > 20) return 0;
    for (const char *p = text; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    char *end;
    *key = strtoull(text, &end, 10);
    return *end == 0 && !(strlen(text) == 20 && strcmp(text, "18446744073709551615") > 0);
}

static int timed(tb_index *x, const char *count_text, tb_value *values) {
    uint64_t count;
    if (!parse_key(count_text, &count) || !count || !tb_segments(x)) {
        fprintf(stderr, "tbprobe: --time needs a count of probes and a table with keys\n");
        return 2;
    }
    uint64_t *keys = malloc(sizeof *keys * 65536);
    if (!keys) {
        fprintf(stderr, "tbprobe: out of memory\n");
        return 2;
    }
    uint64_t state = 0x9E3779B97F4A7C15u, found = 0, sum = 0;
    for (int i = 0; i < 65536; i++) {  /* random slots of random segments, their keys drawn before the clock */
        tb_segment_info info;
        state = state * 6364136223846793005u + 1442695040888963407u;
        uint64_t chosen = (state >> 17) % tb_segments(x);
        state = state * 6364136223846793005u + 1442695040888963407u;
        if (tb_segment(x, chosen, &info) != 0 || tb_key_at(x, chosen, (state >> 17) % info.slots, &keys[i]) != 1) {
            fprintf(stderr, "tbprobe: %s\n", tb_error(x));
            free(keys);
            return 2;
        }
    }
    struct timespec a, b, ca, cb;  /* the wall's time, and this process's (on a shared machine, less) */
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ca);
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (uint64_t i = 0; i < count; i++) {
        if (tb_probe(x, keys[i & 65535], values) == 1) {
            found++;
            sum += values[0].u + (uint64_t)values[0].i + values[0].length;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cb);
    double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)count;
    double cpu = ((double)(cb.tv_sec - ca.tv_sec) * 1e9 + (double)(cb.tv_nsec - ca.tv_nsec)) / (double)count;
    printf("{\"probes\": %llu, \"found\": %llu, \"ns_per_probe\": %.1f, \"cpu_ns_per_probe\": %.1f, "
           "\"checksum\": %llu}\n", (unsigned long long)count, (unsigned long long)found, ns, cpu,
           (unsigned long long)sum);
    free(keys);
    return 0;
}

static int probed(tb_index *x, int count, char **texts, tb_value *values) {
    for (int a = 0; a < count; a++) {
        uint64_t key;
        if (!parse_key(texts[a], &key)) {
            fprintf(stderr, "tbprobe: not a key (a whole number from 0): %s\n", texts[a]);
            return 2;
        }
        int found = tb_probe(x, key, values);
        if (found < 0) {
            fflush(stdout);
            fprintf(stderr, "tbprobe: %s\n", tb_error(x));
            return 2;
        }
        printf("{\"key\": %llu, \"found\": %s", (unsigned long long)key, found ? "true" : "false");
        for (int f = 0; found && f < tb_figures(x); f++) {
            if (!values[f].available) continue;  /* found by the children: not in the index */
            printf(", ");
            print_text(tb_figure_name(x, f), strlen(tb_figure_name(x, f)));
            printf(": ");
            print_value(&values[f]);
        }
        printf("}\n");
    }
    return 0;
}

/* What --check prints of a sound index: its segments, positions, figures (those not in it apart) and about. */
static void described(const tb_index *x) {
    printf("{\"segments\": %llu, \"positions\": %llu, \"damaged\": 0", (unsigned long long)tb_segments(x),
           (unsigned long long)tb_positions(x));
    for (int available = 1; available >= 0; available--) {
        printf(available ? ", \"figures\": [" : "], \"not_available\": [");
        for (int f = 0, listed = 0; f < tb_figures(x); f++) {
            if (tb_figure_available(x, f) != available) continue;
            printf(listed++ ? ", " : "");
            print_text(tb_figure_name(x, f), strlen(tb_figure_name(x, f)));
        }
    }
    size_t length;
    const char *about = tb_about(x, &length);
    printf("], \"about\": %.*s}\n", (int)length, about);  /* JSON already: checked so on opening */
}

int main(int argc, char **argv) {
    int timing = argc > 1 && strcmp(argv[1], "--time") == 0, checking = argc > 1 && strcmp(argv[1], "--check") == 0;
    if (argc < 3 || (timing && argc != 4) || (checking && argc != 3)) {
        fprintf(stderr, "usage: tbprobe INDEX KEY...   or   tbprobe --check INDEX   or   tbprobe --time INDEX COUNT\n");
        return 2;
    }
    char error[512];
    tb_index *x = tb_open(argv[1 + (timing || checking)], error, sizeof error);
    if (!x) {
        fprintf(stderr, "tbprobe: %s\n", error);
        return 2;
    }
    tb_value *values = calloc((size_t)tb_figures(x), sizeof *values);
    int status = 2;
    if (!values) {
        fprintf(stderr, "tbprobe: out of memory\n");
    } else if (timing) {
        status = timed(x, argv[3], values);
    } else if (checking) {
        uint64_t bad = tb_check(x);
        if (bad) fprintf(stderr, "tbprobe: %llu of %llu segments damaged; the last: %s\n", (unsigned long long)bad,
                         (unsigned long long)tb_segments(x), tb_error(x));
        else described(x);
        status = bad ? 2 : 0;
    } else {
        status = probed(x, argc - 2, argv + 2, values);
    }
    free(values);
    tb_close(x);
    return status;
}
#endif
