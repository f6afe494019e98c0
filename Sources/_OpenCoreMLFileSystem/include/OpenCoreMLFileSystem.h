#ifndef OPENCOREML_FILESYSTEM_H
#define OPENCOREML_FILESYSTEM_H

#ifdef __cplusplus
extern "C" {
#endif

/* Swaps two existing paths (files or folders) in one atomic step: afterwards `a` names what `b`
 * named and the other way round. Linux: renameat2(RENAME_EXCHANGE); Apple platforms:
 * renamex_np(RENAME_SWAP). Returns 0, or -1 with errno set (ENOSYS or EINVAL where the system or
 * the file system cannot swap). */
int ocm_exchange_paths(const char *a, const char *b);

/* Whether a process with this id is running (kill(pid, 0) succeeds or fails with EPERM). */
int ocm_process_is_alive(int pid);

#ifdef __cplusplus
}
#endif

#endif
