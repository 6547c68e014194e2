#!/usr/bin/env python3
"""`vault-search mcp` checked by an independent client: the official MCP Python SDK.

Starts the binary through the SDK's stdio client against a small vault of its own, lists the
tools, calls each one, and checks the answers (the SDK itself validates structured output
against each tool's declared outputSchema). Exits non-zero on the first failure.

    python tests/clients/mcp_client.py path/to/vault-search

`.ci/run` installs the pinned SDK in a venv and runs this after `cargo test`.
"""

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client
from support import tool_names

NOTES = {
    "Dev/kotlin.md": "---\ntags: [build]\n---\n# Kotlin\n\nThe gradle daemon kept a stale lock.\n",
    "Dev/rust.md": "# Rust\n\nCargo builds crates.\n",
    "Meta/todo.md": "# Todo\n\nfix the gradle daemon, see [[kotlin]]\n",
}


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def text_of(result):
    return "".join(c.text for c in result.content if getattr(c, "type", None) == "text")


async def run(binary: str, root: Path) -> None:
    vault = root / "vault"
    hidden = vault / ".obsidian" / "private.md"
    hidden.parent.mkdir(parents=True, exist_ok=True)
    hidden.write_text("private text\n", encoding="utf-8")
    for rel, body in NOTES.items():
        p = vault / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(body, encoding="utf-8")
    env = {
        "VAULT_SEARCH_CACHE_DIR": str(root / "cache"),
        # A port nothing listens on: no real Obsidian answers.
        "OMNISEARCH_PORT": "9",
    }
    params = StdioServerParameters(
        command=binary, args=["mcp", "--vault", str(vault)], env=env
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            check(init.server_info.name == "vault-search", f"server name: {init.server_info}")

            tools = (await session.list_tools()).tools
            names = sorted(t.name for t in tools)
            check(names == tool_names(), f"tools: {names}, not {tool_names()}")
            for t in tools:
                a = t.annotations
                check(
                    a is not None and a.read_only_hint and a.idempotent_hint and a.open_world_hint is False,
                    f"{t.name} annotations: {a}",
                )
                check(bool(t.title), f"{t.name} has a title")
            # A liveness check works after the tool list as before it.
            await session.send_ping()
            search = next(t for t in tools if t.name == "search_notes")
            check(search.output_schema is not None, "search_notes declares an outputSchema")

            # The SDK validates structuredContent against that schema in call_tool.
            r = await session.call_tool("search_notes", {"query": "stale daemon", "source": "local"})
            check(not r.is_error, f"search failed: {text_of(r)}")
            s = r.structured_content
            check(s["engine"] == "local", f"engine: {s['engine']}")
            check(s["total_results"] == len(s["results"]) >= 1, f"results: {s}")
            top = s["results"][0]
            check(top["path"] == "Dev/kotlin.md", f"top hit: {top}")
            check(top["line"] == 6 and top["heading"] == "Kotlin", f"line/heading: {top}")
            check(top["tags"] == ["build"], f"tags: {top}")
            # The passage: the note's own lines 4-6 (the short note whole), in both views.
            p = top["passages"][0]
            check((p["line"], p["end_line"]) == (4, 6), f"passage: {top}")
            check(p["text"] == "# Kotlin\n\nThe gradle daemon kept a stale lock.", f"passage: {p}")
            check("Dev/kotlin.md:4-6 — Kotlin\n  # Kotlin\n\n  The gradle daemon" in text_of(r), f"text: {text_of(r)}")

            # A budget holds for the whole answer; below 100 tokens it is refused.
            r = await session.call_tool("search_notes", {"query": "gradle", "source": "local", "budget": 100})
            check(not r.is_error and len(text_of(r)) <= 4 * 100, f"budget 100: {text_of(r)}")
            r = await session.call_tool("search_notes", {"query": "gradle", "budget": 99})
            check(r.is_error and "budget" in text_of(r), f"budget 99: {text_of(r)}")

            # One section by its heading, and the outline.
            r = await session.call_tool("read_note", {"path": "Dev/kotlin.md", "heading": "kotlin"})
            check(not r.is_error and "section Kotlin (lines 4-6)" in text_of(r), f"section: {text_of(r)}")
            r = await session.call_tool("read_note", {"path": "Dev/kotlin.md", "outline": True})
            check(not r.is_error and "4-6 # Kotlin" in text_of(r), f"outline: {text_of(r)}")

            r = await session.call_tool("search_notes", {"query": "zeppelin", "source": "local"})
            check(not r.is_error and r.structured_content["total_results"] == 0, "no hits")
            check("fewer words" in text_of(r), f"no-hit text: {text_of(r)}")

            r = await session.call_tool("search_notes", {"query": "gradle", "limit": 99})
            check(r.is_error, "limit 99 is refused")

            # Every text argument has its cap, the link filters and a heading too.
            long = "x" * 4097
            for tool, args in [
                ("search_notes", {"query": "gradle", "links_to": long}),
                ("search_notes", {"query": "gradle", "linked_from": long}),
                ("search_notes", {"query": "gradle", "folder": long}),
                ("read_note", {"path": "Dev/kotlin.md", "heading": long}),
            ]:
                r = await session.call_tool(tool, args)
                check(r.is_error and "at most 4096 bytes" in text_of(r), f"{tool} {list(args)}: {text_of(r)}")
            # A filter without words lists notes; so does a folder alone.
            r = await session.call_tool("search_notes", {"folder": "Dev", "source": "local"})
            check(not r.is_error and r.structured_content["total_results"] == 2, f"folder listing: {text_of(r)}")

            # No words, newest first: every note (the SDK validates this answer too).
            r = await session.call_tool("search_notes", {"sort": "modified", "source": "local"})
            check(not r.is_error and r.structured_content["total_results"] == len(NOTES), f"listing: {text_of(r)}")

            r = await session.call_tool("search_notes", {"query": "gradle", "folder": "Deev"})
            check(r.is_error and '"Dev"' in text_of(r), f"missing folder: {text_of(r)}")

            r = await session.call_tool("search_notes", {"query": "gradle", "limit": "ten"})
            check(r.is_error and "limit must be a whole number" in text_of(r), f"bad limit: {text_of(r)}")

            r = await session.call_tool("read_note", {"path": "Dev/kotlin.md", "line": 6, "context": 1})
            check(not r.is_error, f"read_note failed: {text_of(r)}")
            check("6\tThe gradle daemon kept a stale lock." in text_of(r), f"read_note: {text_of(r)}")

            # The note's links and backlinks follow its text, unless links=false.
            r = await session.call_tool("read_note", {"path": "Dev/kotlin.md"})
            check("links in (1): Meta/todo.md" in text_of(r), f"read_note links: {text_of(r)}")
            r = await session.call_tool("read_note", {"path": "Meta/todo.md", "links": False})
            check(not r.is_error and "links out" not in text_of(r), f"read_note links=false: {text_of(r)}")

            r = await session.call_tool("related_notes", {"path": "Dev/kotlin.md"})
            check(not r.is_error, f"related_notes failed: {text_of(r)}")
            rel = r.structured_content
            check(rel["note"] == "Dev/kotlin.md", f"related note: {rel}")
            check(rel["results"][0]["path"] == "Meta/todo.md", f"related: {rel}")
            check("links here" in rel["results"][0]["reasons"], f"related reasons: {rel}")
            check("Meta/todo.md — links here" in text_of(r), f"related text: {text_of(r)}")
            r = await session.call_tool("related_notes", {"path": "Dev/nothing.md"})
            check(r.is_error and "no file" in text_of(r), f"related unknown: {text_of(r)}")

            r = await session.call_tool("read_note", {"paths": ["Dev/rust.md", "Meta/todo.md"]})
            check(not r.is_error and "Cargo builds" in text_of(r) and "fix the gradle" in text_of(r), f"read_note paths: {text_of(r)}")

            r = await session.call_tool("read_note", {"path": "../outside.md"})
            check(r.is_error and ".." in text_of(r), f"read_note outside: {text_of(r)}")

            r = await session.call_tool("read_note", {"path": ".obsidian/private.md"})
            check(r.is_error and "private text" not in text_of(r), f"read_note hidden: {text_of(r)}")

            r = await session.call_tool("vault_overview", {})
            ov = r.structured_content
            check(not r.is_error and ov["notes"] == len(NOTES), f"overview: {text_of(r)}")
            check({"name": "Dev", "notes": 2} in ov["folders"]["top"], f"overview folders: {ov}")
            check(ov["links"] == {"links": 1, "broken": 0, "orphans": 1}, f"overview links: {ov}")

            r = await session.call_tool("index_status", {})
            check(not r.is_error, f"index_status failed: {text_of(r)}")
            st = r.structured_content
            check(st["indexed"] is True and st["notes"] == len(NOTES), f"status: {st}")
            check(st["omnisearch_answers"] is False, f"status: {st}")


def leaves(e):
    """The real failures inside the task groups' exception groups."""
    subs = getattr(e, "exceptions", None)
    if isinstance(subs, (list, tuple)):
        return [leaf for sub in subs for leaf in leaves(sub)]
    return [e]


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as d:
        try:
            asyncio.run(asyncio.wait_for(run(binary, Path(d)), timeout=120))
        except Exception as e:  # report any failure and exit non-zero
            for leaf in leaves(e):
                print(f"mcp client check FAILED: {type(leaf).__name__}: {leaf}", file=sys.stderr)
            return 1
    print("mcp client check: ok (official Python SDK)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
