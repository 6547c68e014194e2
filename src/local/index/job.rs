//! The PDF child's memory cap on Windows, which has no `RLIMIT_AS`: the child puts itself in a
//! new Job Object whose per-process limit (`JOB_OBJECT_LIMIT_PROCESS_MEMORY`, on committed
//! memory) is the cap, before it reads the PDF, so an allocation past the cap fails and the
//! child aborts, which the parent reports as a failed extraction. Jobs nest (Windows 8 and
//! later), so this holds when the indexer itself runs inside a job (a terminal, a service, CI).
//! The job's handle stays open for the life of the process: closing it would end the limit.
//!
//! These are the crate's only Windows API calls of its own, through windows-sys (Cargo.toml
//! says why that crate).
#![allow(unsafe_code)]

use std::io;

use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
#[cfg(test)]
use windows_sys::Win32::System::JobObjects::QueryInformationJobObject;
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JOB_OBJECT_LIMIT_PROCESS_MEMORY,
};
use windows_sys::Win32::System::Threading::GetCurrentProcess;

/// An unnamed job whose processes may each commit at most `bytes`.
struct Job(HANDLE);

impl Job {
    fn with_memory_cap(bytes: u64) -> io::Result<Job> {
        // SAFETY: no security attributes and no name are valid arguments; the handle returned
        // is owned by the `Job` (closed on drop unless leaked).
        let job = Job(unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) });
        if job.0.is_null() {
            return Err(io::Error::last_os_error());
        }
        let mut info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_PROCESS_MEMORY;
        info.ProcessMemoryLimit = usize::try_from(bytes).unwrap_or(usize::MAX);
        // SAFETY: `info` is the structure this information class takes, of the size given.
        let ok = unsafe {
            SetInformationJobObject(
                job.0,
                JobObjectExtendedLimitInformation,
                (&raw const info).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    /// The per-process memory cap the job holds.
    #[cfg(test)]
    fn memory_cap(&self) -> io::Result<u64> {
        let mut info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        // SAFETY: `info` is the structure this information class fills, of the size given.
        let ok = unsafe {
            QueryInformationJobObject(
                self.0,
                JobObjectExtendedLimitInformation,
                (&raw mut info).cast(),
                size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                std::ptr::null_mut(),
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(info.ProcessMemoryLimit as u64)
    }

    fn assign_this_process(self) -> io::Result<()> {
        // SAFETY: both handles are valid; the pseudo-handle of this process needs no closing.
        let ok = unsafe { AssignProcessToJobObject(self.0, GetCurrentProcess()) };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        // Kept open until the process ends: the job, and its limit, last as long as a handle.
        std::mem::forget(self);
        Ok(())
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: the handle is this `Job`'s own, closed once.
        unsafe { CloseHandle(self.0) };
    }
}

/// Caps the memory each process of a new job may commit at `bytes`, and puts this process in it.
pub(crate) fn cap_this_process(bytes: u64) -> io::Result<()> {
    Job::with_memory_cap(bytes)?.assign_this_process()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        windows,
        ignore = "Wine only: it accepts a job's memory limit but keeps none (reads back 0, \
                  enforces nothing); on Windows run it with --ignored"
    )]
    fn a_job_holds_the_memory_cap_it_was_given() {
        let job = Job::with_memory_cap(256 << 20).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            job.memory_cap().unwrap_or_else(|e| panic!("{e}")),
            256 << 20
        );
    }

    #[test]
    fn this_process_can_be_put_in_a_capped_job() {
        // A cap no test comes near: the test process itself goes in (jobs nest).
        cap_this_process(64 << 30).unwrap_or_else(|e| panic!("{e}"));
    }
}
