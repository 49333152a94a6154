/* tbprobe: probe a tablebase probe index (docs/format.md) by memory-mapping it.
 *
 * One C99 file and this header, no dependencies beyond POSIX mmap:
 *
 *     char error[256];
 *     tb_index *index = tb_open("tb/chomp_13x13/probe.tbi", error, sizeof error);
 *     tb_value values[TB_MAX_FIGURES];
 *     if (index && tb_probe(index, key, values) == 1)
 *         for (int f = 0; f < tb_figures(index); f++) ... tb_figure_name(index, f), values[f] ...
 *     tb_close(index);
 *
 * Opening checks the header (magic, version, byte order, CRC-32, that every
 * section lies inside the file); a probe touches only the pages its key
 * needs. tb_check() checks every section's CRC-32.
 */
#ifndef TBPROBE_H
#define TBPROBE_H

#include <stddef.h>
#include <stdint.h>

#define TB_MAX_FIGURES 255

enum tb_type { TB_INTEGER = 1, TB_FLOAT = 2, TB_TEXT = 3, TB_BOOLEAN = 4 };

typedef struct {
    int type;          /* enum tb_type */
    int is_null;       /* the row holds no value for this figure */
    int is_unsigned;   /* TB_INTEGER: the value is in u, not i */
    int64_t i;         /* TB_INTEGER (signed), TB_BOOLEAN (0 or 1) */
    uint64_t u;        /* TB_INTEGER (unsigned) */
    double f;          /* TB_FLOAT */
    const char *text;  /* TB_TEXT: UTF-8, not NUL-terminated, inside the mapping */
    size_t length;     /* TB_TEXT: bytes */
} tb_value;

typedef struct tb_index tb_index;

/* Map and check an index; NULL with a message in error (if error_size > 0) if it cannot. */
tb_index *tb_open(const char *path, char *error, size_t error_size);
void tb_close(tb_index *index);

int tb_figures(const tb_index *index);
const char *tb_figure_name(const tb_index *index, int figure);
uint64_t tb_positions(const tb_index *index);
/* Dense: keys are 0..tb_slots()-1. Sparse: the number of keys, and tb_key_at() gives the i-th. */
uint64_t tb_slots(const tb_index *index);
int tb_is_dense(const tb_index *index);
uint64_t tb_key_at(const tb_index *index, uint64_t i);
/* The table's name, game, kind and parameters: JSON, not NUL-terminated. */
const char *tb_about(const tb_index *index, size_t *length);

/* 1: the key is a stored position, values[0..tb_figures()-1] filled; 0: it is not;
 * -1: the index is damaged at this key (a code outside its dictionary). */
int tb_probe(const tb_index *index, uint64_t key, tb_value *values);

/* 0 if every section's CRC-32 is as the header says, else the number of sections that differ. */
int tb_check(const tb_index *index);

#endif
