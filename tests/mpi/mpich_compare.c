/* Datatype bounds, sizes and counts printed by one program built twice, with
 * MPICH's mpicc and with Sluice; the outputs must be identical (ctest
 * mpi_datatype_vs_mpich).  Left out on purpose, because Sluice follows the
 * MPI 3.1 text where MPICH 4 does not:
 *  - structs containing resized types: MPI 3.1 §4.1.7 lets only the explicit
 *    (sticky) lb/ub markers set the bounds; MPICH takes min/max over all
 *    members and pads (datatype_test.c has the values);
 *  - MPI_Get_elements on a byte count ending inside a basic element of a
 *    derived type: Sluice returns MPI_UNDEFINED (as both do for basic
 *    types), MPICH the number of whole elements;
 *  - MPI_Get_elements on pair types (MPICH 4.0 divides by zero) and on
 *    structs containing them (MPICH counts a pair as one element). */
#include <mpi.h>

#include <stdio.h>
#include <string.h>

static void show(const char *name, MPI_Datatype t, int elements)
{
    int size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_commit(&t);
    MPI_Type_size(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    printf("%-28s size %4d lb %5ld ext %5ld tlb %5ld text %5ld |", name, size, (long)lb,
           (long)ext, (long)tlb, (long)text);
    for (int b = 0; b <= 3 * size + 2 && b <= 64; b++) {
        MPI_Status st;
        int c, n;
        memset(&st, 0, sizeof st);
        MPI_Status_set_elements(&st, MPI_BYTE, b);
        MPI_Get_count(&st, t, &c);
        printf(" %d", c == MPI_UNDEFINED ? -1 : c);
        if (elements && size > 0 && b % size == 0) {
            MPI_Get_elements(&st, t, &n);
            printf("/%d", n);
        }
    }
    printf("\n");
}

#define STRUCT2E(name, A, da, B, db, elements)                                              \
    do {                                                                                    \
        MPI_Aint d_[2] = {da, db};                                                          \
        MPI_Datatype ty_[2] = {A, B}, t_;                                                   \
        MPI_Type_create_struct(2, bl2, d_, ty_, &t_);                                       \
        show(name, t_, elements);                                                           \
        MPI_Type_free(&t_);                                                                 \
    } while (0)
#define STRUCT2(name, A, da, B, db) STRUCT2E(name, A, da, B, db, 1)

int main(int argc, char **argv)
{
#ifndef SLUICE_MPI
    MPI_Init(&argc, &argv);
#endif
    static const struct {
        const char *n;
        MPI_Datatype t;
        int pair;
    } pre[] = {{"FLOAT_INT", MPI_FLOAT_INT, 1},
               {"DOUBLE_INT", MPI_DOUBLE_INT, 1},
               {"LONG_INT", MPI_LONG_INT, 1},
               {"SHORT_INT", MPI_SHORT_INT, 1},
               {"2INT", MPI_2INT, 1},
               {"LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, 1},
               {"CHAR", MPI_CHAR, 0},
               {"SHORT", MPI_SHORT, 0},
               {"INT", MPI_INT, 0},
               {"LONG", MPI_LONG, 0},
               {"LONG_LONG", MPI_LONG_LONG, 0},
               {"FLOAT", MPI_FLOAT, 0},
               {"DOUBLE", MPI_DOUBLE, 0},
               {"LONG_DOUBLE", MPI_LONG_DOUBLE, 0},
               {"C_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX, 0},
               {"C_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX, 0},
               {"WCHAR", MPI_WCHAR, 0},
               {"C_BOOL", MPI_C_BOOL, 0},
               {"INT8_T", MPI_INT8_T, 0},
               {"UINT64_T", MPI_UINT64_T, 0},
               {"AINT", MPI_AINT, 0},
               {"OFFSET", MPI_OFFSET, 0},
               {"COUNT", MPI_COUNT, 0},
               {"BYTE", MPI_BYTE, 0},
               {"PACKED", MPI_PACKED, 0}};
    for (unsigned i = 0; i < sizeof pre / sizeof pre[0]; i++)
        show(pre[i].n, pre[i].t, !pre[i].pair); /* MPICH 4.0 divides by 0 on pairs */

    int bl2[] = {1, 1};
    STRUCT2("s{double0,char8}", MPI_DOUBLE, 0, MPI_CHAR, 8);
    STRUCT2("s{int0,char4}", MPI_INT, 0, MPI_CHAR, 4);
    STRUCT2("s{char0,char2}", MPI_CHAR, 0, MPI_CHAR, 2);
    STRUCT2("s{ldouble0,char16}", MPI_LONG_DOUBLE, 0, MPI_CHAR, 16);
    STRUCT2("s{char0,double1}", MPI_CHAR, 0, MPI_DOUBLE, 1);
    STRUCT2("s{char-3,short0}", MPI_CHAR, -3, MPI_SHORT, 0);
    STRUCT2("s{cplx0,char16}", MPI_C_DOUBLE_COMPLEX, 0, MPI_CHAR, 16);
    STRUCT2("s{ldcplx0,char32}", MPI_C_LONG_DOUBLE_COMPLEX, 0, MPI_CHAR, 32);
    STRUCT2("s{int64_0,char8}", MPI_INT64_T, 0, MPI_CHAR, 8);
    /* MPICH 4.0 counts a pair inside a struct as one element (Sluice: two) */
    STRUCT2E("s{short0,float_int4}", MPI_SHORT, 0, MPI_FLOAT_INT, 4, 0);

    MPI_Datatype t, u, v, r;
    int bl3[] = {1, 0, 2};
    MPI_Aint d3[] = {4, 1000, 8};
    MPI_Datatype ty3[] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_Type_create_struct(3, bl3, d3, ty3, &t);
    show("s{int4,0xdouble,2short8}", t, 1);
    MPI_Type_free(&t);

    MPI_Type_contiguous(3, MPI_INT, &t), show("contig(3,int)", t, 1), MPI_Type_free(&t);
    MPI_Type_contiguous(0, MPI_INT, &t), show("contig(0,int)", t, 1), MPI_Type_free(&t);
    MPI_Type_vector(3, 2, 4, MPI_INT, &t), show("vector(3,2,4,int)", t, 1), MPI_Type_free(&t);
    MPI_Type_vector(3, 1, -2, MPI_INT, &t), show("vector(3,1,-2,int)", t, 1), MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 3, 100, MPI_DOUBLE, &t);
    show("hvector(2,3,100,double)", t, 1), MPI_Type_free(&t);
    int ibl[] = {2, 1, 3}, idp[] = {4, 0, 10};
    MPI_Type_indexed(3, ibl, idp, MPI_INT, &t), show("indexed", t, 1), MPI_Type_free(&t);
    int hbl[] = {1, 2};
    MPI_Aint hd[] = {-8, 24};
    MPI_Type_create_hindexed(2, hbl, hd, MPI_DOUBLE, &t);
    show("hindexed", t, 1), MPI_Type_free(&t);
    int bd[] = {5, 1};
    MPI_Type_create_indexed_block(2, 2, bd, MPI_SHORT, &t);
    show("indexed_block", t, 1), MPI_Type_free(&t);

    /* resized on its own and under contiguous/vector (no struct around it) */
    MPI_Type_create_resized(MPI_INT, -4, 12, &r), show("resized(int,-4,12)", r, 1);
    MPI_Type_contiguous(2, r, &t), show("contig(2,resized)", t, 1), MPI_Type_free(&t);
    MPI_Type_vector(2, 2, 3, r, &t), show("vector(2,2,3,resized)", t, 1), MPI_Type_free(&t);
    MPI_Type_dup(r, &t), show("dup(resized)", t, 1), MPI_Type_free(&t);
    MPI_Type_free(&r);
    MPI_Type_create_resized(MPI_INT, 0, -8, &r);
    MPI_Type_contiguous(3, r, &t), show("contig(3,resized(int,0,-8))", t, 1), MPI_Type_free(&t);
    MPI_Type_free(&r);

    /* nesting: vector of struct of indexed, and more */
    int sibl[] = {1, 2}, sidp[] = {0, 3}, sbl[] = {1, 2};
    MPI_Type_indexed(2, sibl, sidp, MPI_SHORT, &t), show("indexed shorts", t, 1);
    MPI_Aint sd[] = {0, 11};
    MPI_Datatype sty[] = {t, MPI_INT};
    MPI_Type_create_struct(2, sbl, sd, sty, &u), show("s{I0,2int11}", u, 1);
    MPI_Type_vector(3, 2, 3, u, &v), show("vector(3,2,3,S)", v, 1);
    MPI_Type_free(&t), MPI_Type_free(&u);
    MPI_Type_contiguous(2, v, &t), show("contig(2,V)", t, 1);
    int bl4[] = {2, 1};
    MPI_Aint d4[] = {0, 400};
    MPI_Datatype ty4[] = {t, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl4, d4, ty4, &u), show("s{2C0,double400}", u, 1);
    MPI_Type_free(&u), MPI_Type_free(&t), MPI_Type_free(&v);
    MPI_Aint pd[] = {0, 8};
    MPI_Datatype pty[] = {MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(2, bl2, pd, pty, &t);
    MPI_Type_vector(2, 1, 1, t, &u), show("vector(2,1,1,padded)", u, 1), MPI_Type_free(&u);
    MPI_Aint pd2[] = {1, 40};
    MPI_Datatype pty2[] = {t, MPI_CHAR};
    MPI_Type_create_struct(2, bl2, pd2, pty2, &u), show("s{padded1,char40}", u, 1);
    MPI_Type_free(&u), MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 1, 9, MPI_DOUBLE, &t);
    MPI_Aint hd2[] = {0, 17};
    MPI_Datatype hty2[] = {t, MPI_CHAR};
    MPI_Type_create_struct(2, bl2, hd2, hty2, &u), show("s{hvec(2,1,9,dbl)0,char17}", u, 1);
    MPI_Type_free(&u), MPI_Type_free(&t);

    /* pack of a nested type: checksum of the packed bytes */
    MPI_Type_vector(3, 2, 5, MPI_SHORT, &t);
    MPI_Aint d5[] = {2, 24};
    MPI_Datatype ty5[] = {t, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl2, d5, ty5, &u);
    MPI_Type_commit(&u);
    unsigned char src[256], packed[256];
    for (int i = 0; i < 256; i++) src[i] = (unsigned char)(i * 7 + 3);
    int pos = 0;
    MPI_Pack(src, 3, u, packed, sizeof packed, &pos, MPI_COMM_SELF);
    unsigned sum = 0;
    for (int i = 0; i < pos; i++) sum = sum * 31 + packed[i];
    printf("pack 3 x s{vector(3,2,5,short)2,double24}: %d bytes, hash %08x\n", pos, sum);
    MPI_Type_free(&u), MPI_Type_free(&t);
#ifndef SLUICE_MPI
    MPI_Finalize();
#endif
    return 0;
}
