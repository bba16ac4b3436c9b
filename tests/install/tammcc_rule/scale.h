/* scale.h — a local header of tammcc_rule/main.c (quote includes resolve next to the source) */
#define NBLK 2
