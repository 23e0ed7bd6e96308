/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR BSD-2-Clause */
/*
 * perfmon.h - FreeBSD's perfmon(4) interface (<machine/perfmon.h>) on
 * /dev/perfmon, which is /dev/pmc under perfmon(4)'s name.
 *
 * The names and values of the original header, with Linux ioctl encodings and
 * layouts fixed for 32- and 64-bit callers (the original's quad_t fields are
 * __s64 here, 8-byte aligned by explicit padding). Counters are global: they
 * count everything every online CPU does, summed, and need the privilege of
 * system-scope PMCs. See perfmon(4) in docs/.
 */
#ifndef _UAPI_PMC_PERFMON_H
#define _UAPI_PMC_PERFMON_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define _PATH_PERFMON	"/dev/perfmon"

/* The number of counters of the original; the driver's is in PMIOGET errors. */
#define NPMC		2

struct pmc {
	__s32	pmc_num;		/* counter 0 .. NPMC-1 */
	union {
		struct {
			__u8	pmcus_event;	/* event selector */
			__u8	pmcus_unit;	/* unit mask */
			__u8	pmcus_flags;	/* PMCF_* */
			__u8	pmcus_mask;	/* counter mask (threshold) */
		} pmcu_s;
		__u32	pmcu_val;		/* all four bytes as one word */
	} pmc_pmcu;
};

#define PMC_ALL		(-1)

#define pmc_event	pmc_pmcu.pmcu_s.pmcus_event
#define pmc_unit	pmc_pmcu.pmcu_s.pmcus_unit
#define pmc_flags	pmc_pmcu.pmcu_s.pmcus_flags
#define pmc_mask	pmc_pmcu.pmcu_s.pmcus_mask
#define pmc_val		pmc_pmcu.pmcu_val

#define PMCF_USR	0x01	/* count user mode */
#define PMCF_OS		0x02	/* count kernel mode */
#define PMCF_E		0x04	/* edge detect */
#define PMCF_PC		0x08	/* pin control */
#define PMCF_INT	0x10	/* APIC interrupt on overflow (stripped by the kernel) */
#define PMCF_EN		0x40	/* enable counters (stripped by the kernel) */
#define PMCF_INV	0x80	/* invert the counter-mask comparison */
#define PMCF_SYS_FLAGS	(PMCF_INT | PMCF_EN)	/* user may not set these */

struct pmc_data {
	__s32	pmcd_num;
	__u32	pmcd_pad;
	__s64	pmcd_value;
};

struct pmc_tstamp {
	__s32	pmct_rate;	/* TSC rate in MHz */
	__u32	pmct_pad;
	__s64	pmct_value;	/* TSC value */
};

#define PMIOSETUP	_IOW('5', 1, struct pmc)
#define PMIOSTART	_IOW('5', 2, __s32)
#define PMIOSTOP	_IOW('5', 3, __s32)
#define PMIOREAD	_IOWR('5', 4, struct pmc_data)
#define PMIORESET	_IOW('5', 5, __s32)
#define PMIOTSTAMP	_IOR('5', 6, struct pmc_tstamp)
#define PMIOGET		_IOWR('5', 7, struct pmc)

/* Pentium Pro (P6) events, from Appendix B of the original header. */
#define PMC6_DATA_MEM_REFS		0x43
#define PMC6_DCU_LINES_IN		0x45
#define PMC6_DCU_M_LINES_IN		0x46
#define PMC6_DCU_M_LINES_OUT		0x47
#define PMC6_DCU_MISS_OUTSTANDING	0x48
#define PMC6_IFU_IFETCH			0x80
#define PMC6_IFU_IFETCH_MISS		0x81
#define PMC6_ITLB_MISS			0x85
#define PMC6_IFU_MEM_STALL		0x86
#define PMC6_ILD_STALL			0x87
#define PMC6_L2_IFETCH			0x28	/* MESI */
#define PMC6_L2_LD			0x29	/* MESI */
#define PMC6_L2_ST			0x2a	/* MESI */
#define PMC6_L2_LINES_IN		0x24
#define PMC6_L2_LINES_OUT		0x26
#define PMC6_L2_M_LINES_INM		0x25
#define PMC6_L2_M_LINES_OUTM		0x27
#define PMC6_L2_RQSTS			0x2e	/* MESI */
#define PMC6_L2_ADS			0x21
#define PMC6_L2_DBUS_BUSY		0x22
#define PMC6_L2_DBUS_BUSY_RD		0x23
#define PMC6_BUS_DRDY_CLOCKS		0x62
#define PMC6_BUS_LOCK_CLOCKS		0x63
#define PMC6_BUS_REQ_OUTSTANDING	0x60
#define PMC6_BUS_TRAN_BRD		0x65
#define PMC6_BUS_TRAN_RFO		0x66
#define PMC6_BUS_TRAN_WB		0x67
#define PMC6_BUS_TRAN_IFETCH		0x68
#define PMC6_BUS_TRAN_INVAL		0x69
#define PMC6_BUS_TRAN_PWR		0x6a
#define PMC6_BUS_TRAN_P			0x6b
#define PMC6_BUS_TRAN_IO		0x6c
#define PMC6_BUS_TRAN_DEF		0x6d
#define PMC6_BUS_TRAN_BURST		0x6e
#define PMC6_BUS_TRAN_ANY		0x70
#define PMC6_BUS_TRAN_MEM		0x6f
#define PMC6_BUS_DATA_RCV		0x64
#define PMC6_BUS_BNR_DRV		0x61
#define PMC6_BUS_HIT_DRV		0x7a
#define PMC6_BUS_HITM_DRV		0x7b
#define PMC6_BUS_SNOOP_STALL		0x7e
#define PMC6_FLOPS			0xc1	/* counter 0 only */
#define PMC6_FP_COMP_OPS_EXE		0x10	/* counter 0 only */
#define PMC6_FP_ASSIST			0x11	/* counter 1 only */
#define PMC6_MUL			0x12	/* counter 1 only */
#define PMC6_DIV			0x13	/* counter 1 only */
#define PMC6_CYCLES_DIV_BUSY		0x14	/* counter 0 only */
#define PMC6_LD_BLOCKS			0x03
#define PMC6_SB_DRAINS			0x04
#define PMC6_MISALIGN_MEM_REF		0x05
#define PMC6_INST_RETIRED		0xc0
#define PMC6_UOPS_RETIRED		0xc2
#define PMC6_INST_DECODER		0xd0	/* (sic) */
#define PMC6_HW_INT_RX			0xc8
#define PMC6_CYCLES_INT_MASKED		0xc6
#define PMC6_CYCLES_INT_PENDING_AND_MASKED 0xc7
#define PMC6_BR_INST_RETIRED		0xc4
#define PMC6_BR_MISS_PRED_RETIRED	0xc5
#define PMC6_BR_TAKEN_RETIRED		0xc9
#define PMC6_BR_MISS_PRED_TAKEN_RET	0xca
#define PMC6_BR_INST_DECODED		0xe0
#define PMC6_BTB_MISSES			0xe2
#define PMC6_BR_BOGUS			0xe4
#define PMC6_BACLEARS			0xe6
#define PMC6_RESOURCE_STALLS		0xa2
#define PMC6_PARTIAL_RAT_STALLS		0xd2
#define PMC6_SEGMENT_REG_LOADS		0x06
#define PMC6_CPU_CLK_UNHALTED		0x79

/* Pentium (P5) events ("from the Harvard people"). */
#define PMC5_DATA_READ			0
#define PMC5_DATA_WRITE			1
#define PMC5_DATA_TLB_MISS		2
#define PMC5_DATA_READ_MISS		3
#define PMC5_DATA_WRITE_MISS		4
#define PMC5_WRITE_M_E			5
#define PMC5_DATA_LINES_WBACK		6
#define PMC5_DATA_CACHE_SNOOP		7
#define PMC5_DATA_CACHE_SNOOP_HIT	8
#define PMC5_MEM_ACCESS_BOTH		9
#define PMC5_BANK_CONFLICTS		10
#define PMC5_MISALIGNED_DATA		11
#define PMC5_INST_READ			12
#define PMC5_INST_TLB_MISS		13
#define PMC5_INST_CACHE_MISS		14
#define PMC5_SEGMENT_REG_LOAD		15
#define PMC5_BRANCHES			18
#define PMC5_BTB_HITS			19
#define PMC5_BRANCH_TAKEN		20
#define PMC5_PIPELINE_FLUSH		21
#define PMC5_INST_EXECUTED		22
#define PMC5_INST_EXECUTED_V		23
#define PMC5_BUS_UTILIZATION		24
#define PMC5_WRITE_BACKUP_STALL		25
#define PMC5_DATA_READ_STALL		26
#define PMC5_WRITE_E_M_STALL		27
#define PMC5_LOCKED_BUS			28
#define PMC5_IO_CYCLE			29
#define PMC5_NONCACHE_MEMORY		30
#define PMC5_ADDR_GEN_INTERLOCK		31
#define PMC5_FLOPS			34
#define PMC5_BP0_MATCH			35
#define PMC5_BP1_MATCH			36
#define PMC5_BP2_MATCH			37
#define PMC5_BP3_MATCH			38
#define PMC5_HW_INTR			39
#define PMC5_DATA_RW			40
#define PMC5_DATA_RW_MISS		41

#endif /* _UAPI_PMC_PERFMON_H */
