#!/usr/bin/env python3
# PTY host for one fake Herdr pane: runs argv as a session leader on a fresh pseudo-terminal and
# relays bytes (stdin -> terminal input, terminal output -> stdout). It reports the child pid and,
# later, its exit status as JSON lines on fd 3. When stdin closes (the server went away) or on
# SIGTERM it kills every process of the pane's session, so no pane process outlives its server.
#
# Usage: pty-host.py ROWS COLS -- PROGRAM [ARGS...]

import errno
import fcntl
import json
import os
import select
import signal
import struct
import sys
import termios

STATUS_FD = 3


def session_members(sid):
    members = []
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry, 'rb') as handle:
                stat = handle.read().decode('utf-8', 'replace')
        except OSError:
            continue
        fields = stat[stat.rfind(')') + 2:].split(' ')
        if len(fields) > 3 and fields[3] == str(sid):
            members.append(int(entry))
    return members


def kill_session(sid):
    for pid in session_members(sid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def report(message):
    try:
        os.write(STATUS_FD, (json.dumps(message) + '\n').encode())
    except OSError:
        pass


def spawn(rows, cols, argv):
    master, slave = os.openpty()
    fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    # A close-on-exec pipe: EOF on it means the child has exec'd (or failed), so the pid we report
    # already names the real program, with its session and controlling terminal set up.
    exec_read, exec_write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(exec_read)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            os.closerange(3, exec_write)
            os.closerange(exec_write + 1, 1024)
            # Python ignores SIGPIPE and SIGXFSZ; ignored signals survive exec, shells must not inherit that.
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            os.execvp(argv[0], argv)
        except Exception as error:  # noqa: BLE001 - anything here must end the child
            os.write(2, ('fake herdr: cannot run %s: %s\r\n' % (argv[0], error)).encode())
        os._exit(127)
    os.close(slave)
    os.close(exec_write)
    while os.read(exec_read, 4096):
        pass
    os.close(exec_read)
    return pid, master


def main():
    rows, cols = int(sys.argv[1]), int(sys.argv[2])
    argv = sys.argv[4:]
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    signal.signal(signal.SIGHUP, lambda *_: stopping.append(True))

    pid, master = spawn(rows, cols, argv)
    os.set_blocking(master, False)
    report({'pid': pid})

    pending = b''
    stdin_open = True
    master_open = True
    exit_status = None
    while True:
        if stopping:
            kill_session(pid)
            break
        if exit_status is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done == pid:
                exit_status = status
        if exit_status is not None and not master_open:
            break
        if exit_status is not None:
            # The shell is gone: drain what it wrote, then stop even if orphans keep the tty open.
            drain(master)
            break
        readers = [wake_read]
        if master_open:
            readers.append(master)
        if stdin_open:
            readers.append(0)
        writers = [master] if pending and master_open else []
        try:
            readable, writable, _ = select.select(readers, writers, [], 1.0)
        except InterruptedError:
            continue
        if wake_read in readable:
            try:
                os.read(wake_read, 512)
            except OSError:
                pass
        if master in readable:
            try:
                data = os.read(master, 65536)
                if data:
                    write_all(1, data)
                else:
                    master_open = False
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EINTR):
                    master_open = False
        if 0 in readable:
            data = os.read(0, 65536)
            if data:
                pending += data
            else:
                stdin_open = False
                stopping.append(True)
        if master in writable and pending:
            try:
                written = os.write(master, pending)
                pending = pending[written:]
            except OSError as error:
                if error.errno not in (errno.EAGAIN, errno.EINTR):
                    pending = b''

    kill_session(pid)
    if exit_status is None:
        try:
            _, exit_status = os.waitpid(pid, 0)
        except ChildProcessError:
            exit_status = 0
    if os.WIFSIGNALED(exit_status):
        report({'exit': None, 'signal': os.WTERMSIG(exit_status)})
    else:
        report({'exit': os.WEXITSTATUS(exit_status), 'signal': None})


def drain(master):
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        write_all(1, data)


def write_all(fd, data):
    while data:
        try:
            written = os.write(fd, data)
        except BrokenPipeError:
            return
        data = data[written:]


if __name__ == '__main__':
    main()
