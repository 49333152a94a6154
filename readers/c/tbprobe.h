/* tbprobe: probe a tablebase probe index (docs/format.md, format 2) by memory-mapping it.
 *
 * One C99 file and this header, no dependencies beyond POSIX (open, mmap):
 *
 *     char error[256];
 *     tb_index *index = tb_open("tb/chomp_13x13/probe.tbi", error, sizeof error);
 *     if (!index) { fprintf(stderr, "%s\n", error); ... }
 *     tb_value *values = calloc((size_t)tb_figures(index), sizeof *values);
 *     int found = tb_probe(index, key, values);
 *     if (found == 1)
 *         for (int f = 0; f < tb_figures(index); f++)
 *             if (values[f].available) ... tb_figure_name(index, f), values[f] ...
 *     else if (found < 0) fprintf(stderr, "%s\n", tb_error(index));
 *     free(values);
 *     tb_close(index);
 *
 * An index is a directory, `<table>/probe.tbi`, naming segments of keys kept
 * in segment files under `<table>/probe/`. tb_open reads the directory and
 * checks all of it (magic, version 2, byte order, CRC-32, that its parts add
 * up, its figures, file names and segment entries); it maps no segment file.
 * A probe finds its key's segment by a binary search over the segments'
 * first keys, maps that segment's file the first time one of its segments is
 * touched, and checks the segment (its CRC-32 and every field) the first
 * time a probe touches it; then it reads one code and one tuple. Every
 * number read from a file is checked before it is used, in arithmetic that
 * cannot overflow: a damaged file gives an error, never a crash or an answer.
 *
 * Figures: tb_figures() counts every figure of the table's rows but the key,
 * the position text and the level, in the rows' order. A figure is stored,
 * or derived as the index says: an impartial table's outcome from the Grundy
 * value, its remoteness from the halved one stored. A figure found "by the
 * children" (an impartial table's best_move) is not in the index: a reader
 * that knows the game's moves finds it by probing the children; this one,
 * knowing no game, gives it as not available (tb_figure_available() is 0 and
 * every value of it has available 0 and is_null 1).
 *
 * Threads: a probe may map a file and record a segment as checked, so an
 * index is one thread's at a time, until tb_check() has mapped and checked
 * every segment; after that probes only read, and threads may share it.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include <stddef.h>
#include <stdint.h>

enum tb_type { TB_INTEGER = 1, TB_FLOAT = 2, TB_TEXT = 3, TB_BOOLEAN = 4 };

typedef struct {
    int type;          /* enum tb_type */
    int available;     /* 0: the index does not hold this figure (found by the children); is_null is 1 */
    int is_null;       /* the row holds no value for this figure */
    int is_unsigned;   /* TB_INTEGER: the value is in u, not i */
    int64_t i;         /* TB_INTEGER (signed), TB_BOOLEAN (0 or 1) */
    uint64_t u;        /* TB_INTEGER (unsigned) */
    double f;          /* TB_FLOAT */
    const char *text;  /* TB_TEXT: UTF-8, not NUL-terminated, inside the mapping (good until tb_close) */
    size_t length;     /* TB_TEXT: bytes */
} tb_value;

typedef struct {
    uint64_t first, last;  /* the keys the segment covers (from the directory) */
    uint64_t slots;        /* dense: last - first + 1 (some may be no position); sparse: the keys it lists */
    int dense;
} tb_segment_info;

typedef struct tb_index tb_index;

/* Read and check an index's directory; NULL with a one-line message in error (if error_size > 0) if it
 * cannot: a missing file, another format version, or a damaged directory. */
tb_index *tb_open(const char *path, char *error, size_t error_size);
void tb_close(tb_index *index);

/* The figures of a row, in the table's column order (names NUL-terminated, good until tb_close). */
int tb_figures(const tb_index *index);
const char *tb_figure_name(const tb_index *index, int figure);
int tb_figure_type(const tb_index *index, int figure);       /* enum tb_type */
int tb_figure_available(const tb_index *index, int figure);  /* 0: found by the children, not in the index */
uint64_t tb_positions(const tb_index *index);
/* The table's name, game, kind and parameters: JSON, not NUL-terminated. */
const char *tb_about(const tb_index *index, size_t *length);

/* 1: the key is a stored position, values[0..tb_figures()-1] filled; 0: it is not; -1: the index is
 * damaged at this key (its segment's file missing or short, its CRC-32 wrong, a field or code out of
 * place): tb_error() says how. */
int tb_probe(tb_index *index, uint64_t key, tb_value *values);

/* Segments, in key order. tb_segment: 0 with info filled (the segment mapped and checked), -1 if it is
 * damaged or there is no segment i. tb_key_at: 1 with the key of slot `slot` of segment `segment` (a dense
 * slot's key may be no position: tb_probe says), 0 if there is no such slot, -1 if the segment is damaged. */
uint64_t tb_segments(const tb_index *index);
int tb_segment(tb_index *index, uint64_t segment, tb_segment_info *info);
int tb_key_at(tb_index *index, uint64_t segment, uint64_t slot, uint64_t *key);

/* Every segment mapped and checked, its CRC-32 included: 0 if all are sound, else the number damaged
 * (tb_error() names the last). */
uint64_t tb_check(tb_index *index);

/* The last damage a probe, tb_segment, tb_key_at or tb_check found: one line ("" if none). */
const char *tb_error(const tb_index *index);

#endif
