/*
 * File: third_party/xnnpack/pthreadpool_join.c
 *
 * Derived from pthreadpool (https://github.com/google/pthreadpool): it implements pthreadpool's
 * API and builds on its design and internal headers (src/threadpool-*.h), so pthreadpool's
 * licence applies to it:
 *
 * Copyright 2019 Google LLC
 * Copyright (c) 2017 Facebook Inc.
 * Copyright (c) 2015-2017 Georgia Institute of Technology
 * All rights reserved.
 *
 * Redistribution and use in source and binary forms, with or without
 * modification, are permitted provided that the following conditions are met:
 *
 * * Redistributions of source code must retain the above copyright notice, this
 *   list of conditions and the following disclaimer.
 *
 * * Redistributions in binary form must reproduce the above copyright notice,
 *   this list of conditions and the following disclaimer in the documentation
 *   and/or other materials provided with the distribution.
 *
 * THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
 * AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
 * IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
 * DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
 * FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
 * DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
 * SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
 * CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
 * OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
 * OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
 */
/*
 * pthreadpool's Linux back end (in place of the tarball's src/pthreads.c): the same API, the same
 * work splitting and stealing (src/portable-api.c, src/fastpath.c), but the caller of a parallelize
 * call waits only for the workers that joined that call, and threads spin for microseconds, not
 * milliseconds, before sleeping.
 *
 * Upstream, the caller waits until every worker has woken, run the thread function and checked in,
 * even a worker that finds no work left because the caller stole it all. On a machine with more
 * runnable threads than cores a worker is often not running when a job is posted, and the caller
 * then idles for the rest of the worker's time slice after doing all the work itself.
 *
 * Here one 32-bit word (futex) is the job: its sequence number, JOB_OPEN while the caller has not
 * yet finished its own share and stolen the rest, and the count of workers inside. A worker joins
 * (count + 1, by compare-and-swap of the whole word, so only the job it saw) while the job is open,
 * reads the job's parameters after joining, and leaves (count - 1) when done; it joins each job at
 * most once (the fast-path thread functions rely on at most one call per thread and job). The
 * caller, once its thread function returns (every item has been claimed), clears JOB_OPEN and waits
 * for the count to reach zero: a worker that wakes later sees a closed job and waits for the next.
 * Parameters are written only while no worker is inside (the count is zero and the job closed).
 *
 * A worker descheduled while it holds an item still makes the caller wait (an item cannot be taken
 * back once started). When that happens (the wait outlasts the caller's own share), the next jobs
 * run on the caller alone for a while (see BACKOFF_*): on an oversubscribed machine 2 threads then
 * cost what 1 does instead of more; on an idle one a worker keeps its core and the condition should
 * not arise (not measured: the development machine is never idle).
 */
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "src/threadpool-common.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pthreadpool.h>

#include "src/threadpool-atomics.h"
#include "src/threadpool-object.h"
#include "src/threadpool-utils.h"

#if !PTHREADPOOL_USE_FUTEX || PTHREADPOOL_USE_CPUINFO || !defined(__linux__)
#error "pthreadpool_join.c is the Linux futex back end (PTHREADPOOL_USE_CPUINFO=0)"
#endif

/* The job word lives in has_active_threads; active_threads counts workers asleep on it. */
#define JOB_OPEN UINT32_C(0x80000000)
#define JOB_CALLER_ASLEEP UINT32_C(0x40000000)
#define JOB_SHUTDOWN UINT32_C(0x20000000)
#define JOB_WORKERS UINT32_C(0x00000FFF)
#define JOB_SEQUENCE_UNIT UINT32_C(0x00001000)
#define JOB_SEQUENCE UINT32_C(0x1FFFF000)
/* Workers beyond this count (4095) never join: the caller and the others take their share. */
#define MAX_JOINING_WORKERS JOB_WORKERS

/* How long to spin (pause loop) before sleeping on a futex, in nanoseconds: a worker waiting for the
 * next job, the caller waiting for joined workers to finish the items they claimed. Upstream spins
 * 1,000,000 pauses (30 ms on a 2-vCPU EPYC VM), which on a loaded machine takes the CPU time that the
 * caller (or another process) needs: with 2 threads and load 5, MobileNetV2 took 2x its 1-thread
 * time. 50 us covers the gap between consecutive parallel steps of a model (a few us of per-step
 * work) and ends before a single-threaded step of any size. */
#define WORKER_SPIN_NS 50000
#define CALLER_SPIN_NS 50000
/* Back-off on an oversubscribed machine: when the caller waited for a joined worker longer than its
 * own share took (plus BACKOFF_SLACK_NS), the worker was descheduled holding an item; the next
 * `backoff` jobs then run on the caller alone, `backoff` doubling (from BACKOFF_MIN_JOBS, at most
 * BACKOFF_MAX_JOBS) at each such wait and halving at each job whose workers kept up. */
#define BACKOFF_SLACK_NS 200000
#define BACKOFF_MIN_JOBS 8
#define BACKOFF_MAX_JOBS 1024
/* Pauses between two reads of the clock. */
#define SPIN_CHUNK 32

static uint64_t monotonic_ns(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t) now.tv_sec * UINT64_C(1000000000) + (uint64_t) now.tv_nsec;
}

static void futex_wait(pthreadpool_atomic_uint32_t* address, uint32_t value) {
	syscall(SYS_futex, address, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, value, NULL);
}

static void futex_wake_all(pthreadpool_atomic_uint32_t* address) {
	syscall(SYS_futex, address, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX);
}

static uint32_t load_job(struct pthreadpool* threadpool, memory_order order) {
	return atomic_load_explicit(&threadpool->has_active_threads, order);
}

/* Worker: the job word once its sequence differs from last_sequence (or it says shut down). */
static uint32_t wait_for_new_job(struct pthreadpool* threadpool, uint32_t last_sequence, bool spin) {
	uint32_t job = load_job(threadpool, memory_order_acquire);
	if ((job & JOB_SEQUENCE) != last_sequence || (job & JOB_SHUTDOWN) != 0) {
		return job;
	}
	if (spin) {
		const uint64_t start = monotonic_ns();
		do {
			for (uint32_t i = SPIN_CHUNK; i != 0; i--) {
				pthreadpool_yield();
				job = load_job(threadpool, memory_order_acquire);
				if ((job & JOB_SEQUENCE) != last_sequence || (job & JOB_SHUTDOWN) != 0) {
					return job;
				}
			}
		} while (monotonic_ns() - start < WORKER_SPIN_NS);
	}
	/* Announce the sleep (sequentially consistent with the caller's store of a new job and its read
	 * of the count), so that the caller makes the wake-up call only when someone sleeps. */
	atomic_fetch_add_explicit(&threadpool->active_threads, 1, memory_order_seq_cst);
	for (;;) {
		job = load_job(threadpool, memory_order_seq_cst);
		if ((job & JOB_SEQUENCE) != last_sequence || (job & JOB_SHUTDOWN) != 0) {
			break;
		}
		futex_wait(&threadpool->has_active_threads, job);
	}
	atomic_fetch_sub_explicit(&threadpool->active_threads, 1, memory_order_relaxed);
	return job;
}

/* Worker: join the job seen as `job` (same sequence), if it is still open. */
static bool join_job(struct pthreadpool* threadpool, uint32_t job) {
	const uint32_t sequence = job & JOB_SEQUENCE;
	while ((job & JOB_SEQUENCE) == sequence && (job & JOB_OPEN) != 0 && (job & JOB_WORKERS) < MAX_JOINING_WORKERS) {
		if (atomic_compare_exchange_weak_explicit(
				&threadpool->has_active_threads, &job, job + 1, memory_order_acquire, memory_order_relaxed)) {
			return true;
		}
	}
	return false;
}

static void leave_job(struct pthreadpool* threadpool) {
	const uint32_t job = atomic_fetch_sub_explicit(&threadpool->has_active_threads, 1, memory_order_release);
	if ((job & JOB_WORKERS) == 1 && (job & JOB_CALLER_ASLEEP) != 0) {
		futex_wake_all(&threadpool->has_active_threads);
	}
}

/* Caller: close the job to new workers, then wait for those inside it. True if any had joined. */
static bool close_job_and_wait(struct pthreadpool* threadpool) {
	uint32_t job = atomic_fetch_and_explicit(&threadpool->has_active_threads, ~JOB_OPEN, memory_order_acq_rel);
	if ((job & JOB_WORKERS) == 0) {
		return false;
	}
	const uint64_t start = monotonic_ns();
	do {
		for (uint32_t i = SPIN_CHUNK; i != 0; i--) {
			pthreadpool_yield();
			if ((load_job(threadpool, memory_order_acquire) & JOB_WORKERS) == 0) {
				return true;
			}
		}
	} while (monotonic_ns() - start < CALLER_SPIN_NS);
	for (;;) {
		job = load_job(threadpool, memory_order_acquire);
		if ((job & JOB_WORKERS) == 0) {
			return true;
		}
		if ((job & JOB_CALLER_ASLEEP) == 0 &&
			!atomic_compare_exchange_weak_explicit(&threadpool->has_active_threads, &job,
				job | JOB_CALLER_ASLEEP, memory_order_relaxed, memory_order_relaxed)) {
			continue;
		}
		futex_wait(&threadpool->has_active_threads, job | JOB_CALLER_ASLEEP);
	}
}

static void* thread_main(void* arg) {
	struct thread_info* thread = (struct thread_info*) arg;
	struct pthreadpool* threadpool = thread->threadpool;
	uint32_t last_sequence = 0;
	uint32_t last_flags = 0;
	for (;;) {
		const uint32_t job =
			wait_for_new_job(threadpool, last_sequence, (last_flags & PTHREADPOOL_FLAG_YIELD_WORKERS) == 0);
		if ((job & JOB_SHUTDOWN) != 0) {
			return NULL;
		}
		last_sequence = job & JOB_SEQUENCE;
		if (!join_job(threadpool, job)) {
			continue;
		}
		/* Inside the job: its parameters stay fixed until we leave. */
		const uint32_t flags = atomic_load_explicit(&threadpool->flags, memory_order_relaxed);
		const thread_function_t thread_function =
			(thread_function_t) atomic_load_explicit(&threadpool->thread_function, memory_order_relaxed);
		struct fpu_state saved_fpu_state = { 0 };
		if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
			saved_fpu_state = get_fpu_state();
			disable_fpu_denormals();
		}
		thread_function(threadpool, thread);
		if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
			set_fpu_state(saved_fpu_state);
		}
		last_flags = flags;
		leave_job(threadpool);
	}
}

struct pthreadpool* pthreadpool_create(size_t threads_count) {
	if (threads_count == 0) {
		threads_count = (size_t) sysconf(_SC_NPROCESSORS_ONLN);
	}
	struct pthreadpool* threadpool = pthreadpool_allocate(threads_count);
	if (threadpool == NULL) {
		return NULL;
	}
	threadpool->threads_count = fxdiv_init_size_t(threads_count);
	for (size_t tid = 0; tid < threads_count; tid++) {
		threadpool->threads[tid].thread_number = tid;
		threadpool->threads[tid].threadpool = threadpool;
	}
	if (threads_count > 1) {
		pthread_mutex_init(&threadpool->execution_mutex, NULL);
		atomic_store_explicit(&threadpool->has_active_threads, 0, memory_order_relaxed);
		atomic_store_explicit(&threadpool->active_threads, 0, memory_order_relaxed);
		atomic_store_explicit(&threadpool->command, 0, memory_order_relaxed);
		/* The caller is worker #0. No start-up wait: a worker not yet running joins no job. */
		for (size_t tid = 1; tid < threads_count; tid++) {
			pthread_create(&threadpool->threads[tid].thread_object, NULL, &thread_main, &threadpool->threads[tid]);
		}
	}
	return threadpool;
}

PTHREADPOOL_INTERNAL void pthreadpool_parallelize(
	struct pthreadpool* threadpool,
	thread_function_t thread_function,
	const void* params,
	size_t params_size,
	void* task,
	void* context,
	size_t linear_range,
	uint32_t flags)
{
	pthread_mutex_lock(&threadpool->execution_mutex);

	/* No worker is inside a job here (the last one closed with a count of zero). */
	atomic_store_explicit(&threadpool->thread_function, (void*) thread_function, memory_order_relaxed);
	atomic_store_explicit(&threadpool->task, task, memory_order_relaxed);
	atomic_store_explicit(&threadpool->argument, context, memory_order_relaxed);
	atomic_store_explicit(&threadpool->flags, flags, memory_order_relaxed);
	if (params_size != 0) {
		memcpy(&threadpool->params, params, params_size);
	}
	const struct fxdiv_divisor_size_t threads_count = threadpool->threads_count;
	const struct fxdiv_result_size_t range_params = fxdiv_divide_size_t(linear_range, threads_count);
	size_t range_start = 0;
	for (size_t tid = 0; tid < threads_count.value; tid++) {
		struct thread_info* thread = &threadpool->threads[tid];
		const size_t range_length = range_params.quotient + (size_t) (tid < range_params.remainder);
		const size_t range_end = range_start + range_length;
		atomic_store_explicit(&thread->range_start, range_start, memory_order_relaxed);
		atomic_store_explicit(&thread->range_end, range_end, memory_order_relaxed);
		atomic_store_explicit(&thread->range_length, range_length, memory_order_relaxed);
		range_start = range_end;
	}
	/* Solo jobs left and the current back-off live in `command` (unused by this back end otherwise):
	 * the low 16 bits count the solo jobs, the high 16 bits hold the back-off length. */
	uint32_t backoff = atomic_load_explicit(&threadpool->command, memory_order_relaxed);
	if ((backoff & UINT32_C(0xFFFF)) != 0) {
		atomic_store_explicit(&threadpool->command, backoff - 1, memory_order_relaxed);
		struct fpu_state saved = { 0 };
		if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
			saved = get_fpu_state();
			disable_fpu_denormals();
		}
		thread_function(threadpool, &threadpool->threads[0]);
		if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
			set_fpu_state(saved);
		}
		pthread_mutex_unlock(&threadpool->execution_mutex);
		return;
	}

	/* Post the job, open (a worker that joins it sees everything above), with the next sequence. */
	const uint32_t last_job = load_job(threadpool, memory_order_relaxed);
	const uint32_t job = JOB_OPEN | ((last_job + JOB_SEQUENCE_UNIT) & JOB_SEQUENCE);
	atomic_store_explicit(&threadpool->has_active_threads, job, memory_order_seq_cst);
	if (atomic_load_explicit(&threadpool->active_threads, memory_order_seq_cst) != 0) {
		futex_wake_all(&threadpool->has_active_threads);
	}

	struct fpu_state saved_fpu_state = { 0 };
	if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
		saved_fpu_state = get_fpu_state();
		disable_fpu_denormals();
	}
	const uint64_t start = monotonic_ns();
	thread_function(threadpool, &threadpool->threads[0]);
	if (flags & PTHREADPOOL_FLAG_DISABLE_DENORMALS) {
		set_fpu_state(saved_fpu_state);
	}
	const uint64_t own_done = monotonic_ns();
	if (close_job_and_wait(threadpool)) {
		const uint64_t waited = monotonic_ns() - own_done;
		uint32_t length = backoff >> 16;
		if (waited > own_done - start + BACKOFF_SLACK_NS) {
			length = length == 0 ? BACKOFF_MIN_JOBS : (length * 2 > BACKOFF_MAX_JOBS ? BACKOFF_MAX_JOBS : length * 2);
			atomic_store_explicit(&threadpool->command, (length << 16) | length, memory_order_relaxed);
		} else if (length != 0) {
			atomic_store_explicit(&threadpool->command, (length / 2) << 16, memory_order_relaxed);
		}
	}
	pthread_mutex_unlock(&threadpool->execution_mutex);
}

void pthreadpool_destroy(struct pthreadpool* threadpool) {
	if (threadpool == NULL) {
		return;
	}
	const size_t threads_count = threadpool->threads_count.value;
	if (threads_count > 1) {
		atomic_fetch_or_explicit(&threadpool->has_active_threads, JOB_SHUTDOWN, memory_order_seq_cst);
		futex_wake_all(&threadpool->has_active_threads);
		for (size_t tid = 1; tid < threads_count; tid++) {
			pthread_join(threadpool->threads[tid].thread_object, NULL);
		}
		pthread_mutex_destroy(&threadpool->execution_mutex);
	}
	pthreadpool_deallocate(threadpool);
}
