/* tbprobe.c: a reader of tablebase probe indexes (docs/format.md), in C99 with POSIX mmap.
 *
 *     cc -O2 -std=c99 -Wall -Werror -c tbprobe.c                        # the reader
 *     cc -O2 -std=c99 -Wall -Werror -DTBPROBE_MAIN -o tbprobe tbprobe.c  # and its command:
 *     tbprobe FILE KEY...        one JSON object a key: {"key": K, "found": true, "grundy": 3, ...}
 *     tbprobe --time FILE COUNT  COUNT probes of random stored keys, timed: {"probes": ..., "ns_per_probe": ...}
 */
#define _POSIX_C_SOURCE 200809L

#include "tbprobe.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { DENSE = 1, SPARSE = 2, FIELDS = 1, DICTIONARY = 2 };
enum { OFFSET = 1, LISTED = 2, RAW = 3, HAS_NULLS = 1, UNSIGNED = 2 };
enum { KEYS = 1, RECORDS = 2, RECORD_DICTIONARY = 3, INTEGERS = 4, FLOATS = 5, TEXTS = 6 };
#define FIXED 64
#define FIGURE 64
#define SECTION 24
#define NO_SECTION 0xFFFF
#define NONE UINT64_MAX

typedef struct {
    char name[33];
    int type, encoding, width, flags;
    uint32_t offset;
    uint64_t base, null, count;     /* count: entries of its dictionary */
    const uint8_t *dictionary;      /* its dictionary's items, after the count */
    uint64_t dictionary_bytes;      /* bytes of those items */
} figure;

typedef struct { uint32_t kind, crc; uint64_t offset, length; } section;

struct tb_index {
    const uint8_t *data;
    size_t size;
    int layout, records, key_bytes, figures, record_bits, entry_bits, sections;
    uint64_t positions, slots, absent, entries;
    const uint8_t *keys, *record, *entry;   /* each section's items, after its count */
    const char *about;
    size_t about_bytes;
    figure figure[TB_MAX_FIGURES];
    section section[64];
};

/* -- little-endian numbers, whatever the host's order ----------------------------------- */
static uint64_t le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* A little-endian host loads the numbers as they are: a probe's binary search is mostly these loads. */
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

/* The width-bit field at bit `bit` of the bit string at p, least significant bit first.
 * Nine bytes hold any field of up to 64 bits; the format keeps them inside the file. */
static uint64_t field(const uint8_t *p, uint64_t bit, int width) {
    if (width == 0) return 0;
    const uint8_t *q = p + (bit >> 3);
    unsigned shift = (unsigned)(bit & 7);
    uint64_t v = load64(q) >> shift;
    if (shift + (unsigned)width > 64) v |= (uint64_t)q[8] << (64 - shift);
    return width == 64 ? v : v & ((UINT64_C(1) << width) - 1);
}

static uint32_t tb_crc32(const uint8_t *p, size_t n, uint32_t crc) {
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (UINT32_C(0xEDB88320) & (0u - (crc & 1)));
    }
    return ~crc;
}

/* -- opening ------------------------------------------------------------------------------ */
static tb_index *fail(tb_index *index, char *error, size_t size, const char *format, ...) {
    if (error && size) {
        va_list args;
        va_start(args, format);
        vsnprintf(error, size, format, args);
        va_end(args);
    }
    tb_close(index);
    return NULL;
}

static const section *find(const tb_index *x, uint32_t kind) {
    for (int i = 0; i < x->sections; i++)
        if (x->section[i].kind == kind) return &x->section[i];
    return NULL;
}

/* Every section inside the file with the 8 bytes past its end rounded up to 8 (docs/format.md). */
static int placed(const tb_index *x, const section *s) {
    uint64_t padded = s->length + (-s->length & 7) + 8;
    return s->offset % 64 == 0 && s->length >= 8 && s->offset <= x->size && padded <= x->size - s->offset;
}

static const char *read_figures(tb_index *x, const uint8_t *at) {
    for (int f = 0; f < x->figures; f++, at += FIGURE) {
        figure *g = &x->figure[f];
        memcpy(g->name, at, 32);
        g->name[32] = 0;
        g->type = at[32], g->encoding = at[33], g->width = at[34], g->flags = at[35];
        g->offset = (uint32_t)le(at + 40, 4);
        g->base = le(at + 48, 8), g->null = le(at + 56, 8);
        if (g->width > 64 || (uint64_t)g->offset + g->width > (uint64_t)x->entry_bits) return "a field outside its record";
        if (g->encoding != LISTED) continue;
        unsigned which = (unsigned)le(at + 36, 2);
        if (which >= (unsigned)x->sections) return "a figure without its dictionary";
        const section *s = &x->section[which];
        g->count = le(x->data + s->offset, 8);
        g->dictionary = x->data + s->offset + 8;
        g->dictionary_bytes = s->length - 8;
        uint64_t needed = s->kind == TEXTS ? g->count + 1 : g->count;
        if (needed > g->dictionary_bytes / 8) return "a dictionary shorter than its count";
    }
    return NULL;
}

tb_index *tb_open(const char *path, char *error, size_t error_size) {
    tb_index *x = calloc(1, sizeof *x);
    if (!x) return fail(x, error, error_size, "%s: out of memory", path);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < FIXED + 4) {
        if (fd >= 0) close(fd);
        return fail(x, error, error_size, "%s: cannot open, or too short to be a probe index", path);
    }
    x->size = (size_t)st.st_size;
    void *map = mmap(NULL, x->size, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return fail(x, error, error_size, "%s: cannot map", path);
    x->data = map;
    const uint8_t *d = x->data;
    if (memcmp(d, "\x89TBP\r\n\x1a\n", 8) != 0) return fail(x, error, error_size, "%s: not a probe index", path);
    if (le(d + 8, 2) != 1) return fail(x, error, error_size, "%s: format %u, this reader reads 1", path, (unsigned)le(d + 8, 2));
    if (le(d + 10, 2) != 0xFEFF) return fail(x, error, error_size, "%s: numbers are not little-endian", path);
    uint64_t header = le(d + 12, 4);
    if (header < FIXED + 4 || header > x->size) return fail(x, error, error_size, "%s: damaged header", path);
    if (tb_crc32(d, header - 4, 0) != le(d + header - 4, 4))
        return fail(x, error, error_size, "%s: damaged probe index (the header's CRC-32 differs)", path);
    x->layout = d[16], x->records = d[17], x->key_bytes = d[18], x->figures = d[19];
    x->record_bits = d[20], x->entry_bits = d[21], x->sections = (int)le(d + 22, 2);
    x->positions = le(d + 24, 8), x->slots = le(d + 32, 8), x->absent = le(d + 40, 8), x->entries = le(d + 48, 8);
    x->about_bytes = le(d + 56, 4);
    x->about = (const char *)d + FIXED;
    uint64_t start = FIXED + x->about_bytes;
    start += -start & 7;
    if (x->sections > 64 || start + (uint64_t)FIGURE * x->figures + (uint64_t)SECTION * x->sections + 4 != header)
        return fail(x, error, error_size, "%s: damaged header (its parts do not add up)", path);
    const uint8_t *table = d + start + (uint64_t)FIGURE * x->figures;
    for (int i = 0; i < x->sections; i++) {
        section *s = &x->section[i];
        s->kind = (uint32_t)le(table + SECTION * i, 4), s->crc = (uint32_t)le(table + SECTION * i + 4, 4);
        s->offset = le(table + SECTION * i + 8, 8), s->length = le(table + SECTION * i + 16, 8);
        if (s->offset < header || !placed(x, s)) return fail(x, error, error_size, "%s: a section outside the file", path);
    }
    const section *records = find(x, RECORDS), *keys = find(x, KEYS), *entries = find(x, RECORD_DICTIONARY);
    if ((x->layout != DENSE && x->layout != SPARSE) || (x->records != FIELDS && x->records != DICTIONARY) || !records)
        return fail(x, error, error_size, "%s: unknown layout", path);
    if (x->slots > (records->length - 8) * 8 / (x->record_bits ? (uint64_t)x->record_bits : 1))
        return fail(x, error, error_size, "%s: records section too short", path);
    x->record = d + records->offset + 8;
    if (x->records == DICTIONARY) {
        if (!entries || x->record_bits > 64 || x->entries > (entries->length - 8) * 8 / (x->entry_bits ? (uint64_t)x->entry_bits : 1))
            return fail(x, error, error_size, "%s: record dictionary too short", path);
        x->entry = d + entries->offset + 8;
    } else if (x->record_bits != x->entry_bits) {
        return fail(x, error, error_size, "%s: records of another width than their fields", path);
    }
    if (x->layout == SPARSE) {
        int kb = x->key_bytes;
        if (!keys || (kb != 1 && kb != 2 && kb != 4 && kb != 8) || x->slots > (keys->length - 8) / (uint64_t)kb)
            return fail(x, error, error_size, "%s: keys section too short", path);
        x->keys = d + keys->offset + 8;
    }
    const char *problem = read_figures(x, d + start);
    if (problem) return fail(x, error, error_size, "%s: damaged probe index (%s)", path, problem);
    return x;
}

void tb_close(tb_index *x) {
    if (!x) return;
    if (x->data) munmap((void *)x->data, x->size);
    free(x);
}

int tb_figures(const tb_index *x) { return x->figures; }
const char *tb_figure_name(const tb_index *x, int f) { return x->figure[f].name; }
uint64_t tb_positions(const tb_index *x) { return x->positions; }
uint64_t tb_slots(const tb_index *x) { return x->slots; }
int tb_is_dense(const tb_index *x) { return x->layout == DENSE; }
uint64_t tb_key_at(const tb_index *x, uint64_t i) { return x->layout == DENSE ? i : load_key(x->keys + i * x->key_bytes, x->key_bytes); }

const char *tb_about(const tb_index *x, size_t *length) {
    *length = x->about_bytes;
    return x->about;
}

/* -- probing ------------------------------------------------------------------------------ */
/* A key's slot: the key itself (dense) or its rank among the keys by binary search (sparse); -1 if none. */
static int64_t slot_of(const tb_index *x, uint64_t key) {
    if (x->layout == DENSE) return key < x->slots ? (int64_t)key : -1;
    uint64_t low = 0, high = x->slots;
    while (low < high) {
        uint64_t mid = low + (high - low) / 2;
        if (load_key(x->keys + mid * x->key_bytes, x->key_bytes) < key) low = mid + 1;
        else high = mid;
    }
    return low < x->slots && load_key(x->keys + low * x->key_bytes, x->key_bytes) == key ? (int64_t)low : -1;
}

static int decode(const figure *g, uint64_t code, tb_value *v) {
    memset(v, 0, sizeof *v);
    v->type = g->type;
    v->is_unsigned = (g->flags & UNSIGNED) != 0;
    if ((g->flags & HAS_NULLS) && code == g->null) {
        v->is_null = 1;
        return 0;
    }
    uint64_t bits = code;
    if (g->encoding == OFFSET) {
        bits = g->base + code;
    } else if (g->encoding == LISTED) {
        if (code >= g->count) return -1;
        if (g->type == TB_TEXT) {
            uint64_t a = load64(g->dictionary + 8 * code), b = load64(g->dictionary + 8 * code + 8);
            uint64_t text = 8 * (g->count + 1);
            if (a > b || b > g->dictionary_bytes - text) return -1;
            v->text = (const char *)g->dictionary + text + a, v->length = (size_t)(b - a);
            return 0;
        }
        bits = load64(g->dictionary + 8 * code);
    }
    if (g->type == TB_FLOAT) memcpy(&v->f, &bits, 8);
    else if (g->type == TB_BOOLEAN) v->i = bits == 1;
    else if (v->is_unsigned) v->u = bits;
    else memcpy(&v->i, &bits, 8);
    return 0;
}

int tb_probe(const tb_index *x, uint64_t key, tb_value *values) {
    int64_t slot = slot_of(x, key);
    if (slot < 0) return 0;
    const uint8_t *base = x->record;
    uint64_t bit = (uint64_t)slot * (uint64_t)x->record_bits;
    if (x->records == DICTIONARY) {
        uint64_t code = field(x->record, bit, x->record_bits);
        if (code == x->absent) return 0;
        if (code >= x->entries) return -1;
        base = x->entry, bit = code * (uint64_t)x->entry_bits;
    } else if (x->absent != NONE && field(base, bit + x->figure[0].offset, x->figure[0].width) == x->absent) {
        return 0;
    }
    for (int f = 0; f < x->figures; f++) {
        const figure *g = &x->figure[f];
        if (decode(g, field(base, bit + g->offset, g->width), &values[f]) != 0) return -1;
    }
    return 1;
}

int tb_check(const tb_index *x) {
    int bad = 0;
    for (int i = 0; i < x->sections; i++)
        bad += tb_crc32(x->data + x->section[i].offset, (size_t)x->section[i].length, 0) != x->section[i].crc;
    return bad;
}

#ifdef TBPROBE_MAIN
#include <math.h>
#include <time.h>

static void print_text(const char *p, size_t n) {
    putchar('"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
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

static int timed(tb_index *x, const char *count_text) {
    uint64_t count;
    if (!parse_key(count_text, &count) || !count || !tb_slots(x)) {
        fprintf(stderr, "tbprobe: --time needs a count of probes and a table with keys\n");
        return 2;
    }
    uint64_t *keys = malloc(sizeof *keys * 65536);
    tb_value values[TB_MAX_FIGURES];
    uint64_t state = 0x9E3779B97F4A7C15u, found = 0, sum = 0;
    for (int i = 0; i < 65536; i++) {  /* random slots, their keys drawn before the clock starts */
        state = state * 6364136223846793005u + 1442695040888963407u;
        keys[i] = tb_key_at(x, (state >> 17) % tb_slots(x));
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

int main(int argc, char **argv) {
    int timing = argc > 1 && strcmp(argv[1], "--time") == 0;
    if (argc < 3 || (timing && argc != 4)) {
        fprintf(stderr, "usage: tbprobe FILE KEY...   or   tbprobe --time FILE COUNT\n");
        return 2;
    }
    char error[512];
    tb_index *x = tb_open(argv[1 + timing], error, sizeof error);
    if (!x) {
        fprintf(stderr, "tbprobe: %s\n", error);
        return 2;
    }
    if (timing) {
        int status = timed(x, argv[3]);
        tb_close(x);
        return status;
    }
    tb_value values[TB_MAX_FIGURES];
    int status = 0;
    for (int a = 2; a < argc && status == 0; a++) {
        uint64_t key;
        if (!parse_key(argv[a], &key)) {
            fprintf(stderr, "tbprobe: not a key (a whole number from 0): %s\n", argv[a]);
            status = 2;
            break;
        }
        int found = tb_probe(x, key, values);
        if (found < 0) {
            fprintf(stderr, "tbprobe: %s: damaged at key %llu\n", argv[1], (unsigned long long)key);
            status = 1;
            break;
        }
        printf("{\"key\": %llu, \"found\": %s", (unsigned long long)key, found ? "true" : "false");
        for (int f = 0; found && f < tb_figures(x); f++) {
            printf(", ");
            print_text(tb_figure_name(x, f), strlen(tb_figure_name(x, f)));
            printf(": ");
            print_value(&values[f]);
        }
        printf("}\n");
    }
    tb_close(x);
    return status;
}
#endif
