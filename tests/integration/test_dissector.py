#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Check the Wireshark dissector proto/segnet.lua against the encoder.

    test_dissector.py GEN LUA

GEN (dissector_pcap_gen) writes a pcap with one frame of each segnet type
and prints the value every field must have; this script runs tshark with the
Lua dissector on that pcap and compares field by field. A field the
generator lists for one frame must be absent from the frames it does not
list it for. Exits 0 on success, 1 on any mismatch, 77 (skip) when tshark
is not installed.
"""
import os
import pwd
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def fail(msg):
    """Print msg and exit 1."""
    print(f"test_dissector: FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def run(cmd, env, user=None):
    """Run cmd (optionally as user, through setpriv) and return stdout."""
    if user:
        pw = pwd.getpwnam(user)
        cmd = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}",
               "--clear-groups", "--"] + cmd
    res = subprocess.run(cmd, env=env, capture_output=True, text=True,
                         check=False)
    if res.returncode != 0:
        fail(f"{' '.join(cmd)} exited {res.returncode}:\n{res.stderr}")
    return res.stdout, res.stderr


def tshark_env(tmp):
    """An environment that hides the user's own Wireshark profile and plugins."""
    env = dict(os.environ)
    env["HOME"] = os.path.join(tmp, "home")
    env["XDG_CONFIG_HOME"] = os.path.join(tmp, "config")
    env["WIRESHARK_CONFIG_DIR"] = os.path.join(tmp, "config", "wireshark")
    env["LC_ALL"] = "C"
    for d in (env["HOME"], env["WIRESHARK_CONFIG_DIR"]):
        os.makedirs(d, exist_ok=True)
    return env


def lua_loads(lua, env, user):
    """True when tshark registers the segnet fields from the script."""
    out, err = run(["tshark", "-G", "fields", "-X", f"lua_script:{lua}"],
                   env, user)
    if "Lua: Error" in err or "Lua Error" in err:
        fail(f"the dissector does not load:\n{err}")
    return any(line.split("\t")[2:3] == ["segnet.type"]
               for line in out.splitlines())


def pick_user(lua, env, tmp):
    """Who runs tshark: us, or 'nobody' when root may not run Lua scripts.

    Wireshark refuses user Lua scripts as root unless its init.lua sets
    run_user_scripts_when_superuser (Debian 12's 4.0 does); older ones need
    an unprivileged user."""
    if lua_loads(lua, env, None):
        return None
    if os.geteuid() == 0 and shutil.which("setpriv"):
        os.chmod(tmp, 0o755)
        for root, dirs, files in os.walk(tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o777)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        if lua_loads(lua, env, "nobody"):
            return "nobody"
    fail("tshark did not register segnet.type from the Lua script")
    return None


def norm(kind, value):
    """Normalize one tshark or expected value of the given kind."""
    if value == "":
        return None
    items = value.split(",")
    if kind == "x":
        return [v.replace(":", "").lower() for v in items]
    if kind == "b":
        return [1 if v in ("1", "True", "true") else 0 for v in items]
    return [int(v, 16) if v.lower().startswith("0x") else int(v) for v in items]


def load_expected(gen, pcap):
    """Run the generator: returns {frame: {field: (kind, value)}}, fields."""
    res = subprocess.run([gen, pcap], capture_output=True, text=True,
                         check=False)
    if res.returncode != 0:
        fail(f"{gen} exited {res.returncode}:\n{res.stderr}")
    want, fields = {}, []
    for line in res.stdout.splitlines():
        frame, field, kind, value = line.split("\t")
        want.setdefault(int(frame), {})[field] = (kind, value)
        if field not in fields:
            fields.append(field)
    return want, fields


def check_fields(want, fields, rows):
    """Compare tshark's rows with the expectations; returns values checked."""
    kinds = {f: k for w in want.values() for f, (k, _) in w.items()}
    checked = 0
    if len(rows) != len(want):
        fail(f"tshark shows {len(rows)} frames, the generator wrote {len(want)}")
    for row in rows:
        cells = row.split("\t")
        frame = int(cells[0])
        for field, got in zip(fields, cells[1:]):
            exp = want[frame].get(field)
            if exp is None:
                if got != "":
                    fail(f"frame {frame}: {field} is {got!r}, should be absent")
                continue
            if norm(exp[0], got) != norm(exp[0], exp[1]):
                fail(f"frame {frame}: {field} is {got!r}, expected {exp[1]!r}"
                     f" (kind {kinds[field]})")
            checked += 1
    return checked


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    gen, lua = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not shutil.which("tshark"):
        print("test_dissector: tshark not installed, skipping")
        return SKIP
    with tempfile.TemporaryDirectory(prefix="segnet-dissector-") as tmp:
        pcap = os.path.join(tmp, "segnet.pcap")
        want, fields = load_expected(gen, pcap)
        shutil.copy(lua, os.path.join(tmp, "segnet.lua"))
        lua = os.path.join(tmp, "segnet.lua")
        env = tshark_env(tmp)
        user = pick_user(lua, env, tmp)
        base = ["tshark", "-n", "-X", f"lua_script:{lua}", "-r", pcap]
        cmd = base + ["-T", "fields", "-E", "header=n", "-E", "separator=/t",
                      "-E", "occurrence=a", "-E", "aggregator=,",
                      "-E", "quote=n", "-e", "frame.number"]
        for field in fields:
            cmd += ["-e", field]
        out, _ = run(cmd, env, user)
        checked = check_fields(want, fields, out.splitlines())
        verbose, err = run(base + ["-V"], env, user)
        for bad in ("Lua Error", "Malformed Packet", "Dissector bug"):
            if bad in verbose or bad in err:
                fail(f"tshark -V reports '{bad}'")
        if verbose.count("segnet cluster interconnect") < len(want):
            fail("not every frame was dissected as segnet")
    who = f" as {user}" if user else ""
    print(f"test_dissector: {len(want)} frames, {len(fields)} fields,"
          f" {checked} values match{who}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
