"""The README as the front door, and the documentation site: built, true to ``--help``, seen in a browser.

The fast tests need nothing beyond the ``test`` extra. The slow ones need the ``docs`` extra
(``python3 -m pip install -e ".[docs]"``) and Debian's Chromium with its driver
(``apt-get install -y chromium chromium-driver``); they build the site once, with warnings as
errors, into a temporary folder.
"""

import functools
import html.parser
import http.server
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
BUILD = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html"]  # the documented command
PROGRAMS = {"identcheck": "identcheck.cli.parser:build_parser", "numeric": "numeric.cli.parser:build_parser"}
INSTALL_CHROMIUM = "chromium not found: install it with `apt-get install -y chromium chromium-driver`"
INSTALL_DOCS = "selenium not found: install the docs extra with `python3 -m pip install -e \".[docs]\"`"


def _bash_blocks(text: str) -> list[list[str]]:
    return [
        [line for line in block.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        for block in re.findall(r"```bash\n(.*?)```", text, re.S)
    ]


# --- the README -------------------------------------------------------------------------------


def test_the_readme_is_a_front_door_of_at_most_120_lines():
    assert len(README.read_text().splitlines()) <= 120


def test_the_readme_quick_start_is_two_commands_and_ci_runs_its_test_command_verbatim():
    quick_start = README.read_text().split("## Quick start", 1)[1].split("\n## ", 1)[0]
    (commands,) = _bash_blocks(quick_start)
    assert len(commands) == 2, commands
    install_and_run, tests = commands
    assert install_and_run.startswith("python3 -m pip install . && python3 -m identcheck")
    assert tests.endswith("python3 -m pytest") and '".[test]"' in tests
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()


def test_the_readme_links_only_to_files_that_exist():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


@pytest.mark.slow
def test_the_readme_examples_show_their_real_output(tmp_path):
    """Each example's shown lines (all but the ``…``) are lines of what the command prints now."""
    examples = re.findall(r"```\n\$ (.*?)\n(.*?)```", README.read_text(), re.S)
    assert len(examples) == 3
    for command, shown in examples:
        argv = command.split(" ", 1)
        run = subprocess.run(
            [sys.executable, "-m", argv[0], *shlex.split(argv[1])],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr
        printed = run.stdout.splitlines()
        for line in shown.splitlines():
            if line.strip() != "…":
                assert line in printed, f"README: {command!r} no longer prints {line!r}"


#: A pointer into a tracker or a spec a clone does not have ("[ ]": this line must not match itself).
STALE = re.compile(r"issues? #?[0-9]|SPEC[ ]§|SPEC\.md", re.I)


# --- the site's sources -----------------------------------------------------------------------


def test_the_docs_say_what_the_tool_is_not_how_it_got_there():
    """No pointer into a tracker or a spec a reader does not have: a page points to a section of the docs."""
    pages = [p for p in DOCS.rglob("*.md") if "_build" not in p.parts] + [DOCS / "tutorial.ipynb"]
    pages += [README, ROOT / "CHANGELOG.md", ROOT / "CONTRIBUTING.md"]
    found = [f"{p.relative_to(ROOT)}: {m.group(0)!r}" for p in pages for m in STALE.finditer(p.read_text())]
    assert not found, found


def test_the_code_says_what_it_is_not_how_it_got_there():
    """The same for the code, the tests, the benchmarks and CI: a comment cites a section of docs/."""
    files = [p for folder in ("identcheck", "numeric", "tests", "bench") for p in (ROOT / folder).rglob("*.py")]
    files += [ROOT / ".ci" / "run"]
    found = [f"{p.relative_to(ROOT)}: {m.group(0)!r}" for p in files for m in STALE.finditer(p.read_text())]
    assert not found, found


def test_the_stale_reference_pattern_finds_one():
    assert STALE.search("as issue\N{SPACE}12 said") and STALE.search("see SPEC\N{SPACE}§3")
    assert not STALE.search("§3 of docs")


def test_the_site_has_the_sections_a_user_looks_for():
    index = (DOCS / "index.md").read_text()
    toctree = re.search(r"```\{toctree\}\n(.*?)```", index, re.S).group(1)
    pages = [line.strip() for line in toctree.splitlines() if line.strip() and not line.startswith(":")]
    for page in ("getting-started", "usage", "conditions/index", "numeric-half", "findings", "api/index", "cli"):
        assert page in pages
    assert {"changes", "contributing"} <= set(pages)
    for page in pages:
        assert (DOCS / f"{page}.md").exists(), page
    conditions = (DOCS / "conditions" / "index.md").read_text()
    for name in ("type1", "type2", "mha", "type1-full", "deepseekmoe", "your-own"):
        assert name in conditions


def test_the_cli_page_is_generated_from_the_parsers_the_programs_run():
    page = (DOCS / "cli.md").read_text()
    for spec in PROGRAMS.values():
        assert f"```{{cli-reference}} {spec}\n```" in page
    assert "--condition" not in page.split("## The identcheck program")[1]  # no flag written by hand


# --- the site, built (slow) -------------------------------------------------------------------


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site, built as documented (warnings are errors) into a temporary folder."""
    if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
        pytest.fail(INSTALL_DOCS.replace("selenium", "sphinx"), pytrace=False)
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [*BUILD, "-d", str(out / "doctrees"), str(DOCS), str(out / "html")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
    )
    assert run.returncode == 0, f"the docs build failed:\n{run.stderr[-4000:]}"
    return out / "html"


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("script", "style")

    def handle_endtag(self, tag):
        self._skip -= tag in ("script", "style")

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def _squeezed(text: str) -> str:
    """``text`` without whitespace: argparse wraps lines (at spaces and after hyphens), a page does not."""
    return re.sub(r"\s+", "", text)


def _help_of(program: str, command: list[str]) -> str:
    env = dict(os.environ, COLUMNS="100")
    run = subprocess.run(
        [sys.executable, "-m", program, *command, "--help"], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.slow
def test_the_cli_page_says_what_help_says_for_every_command(site):
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from cli_reference import arguments, commands, load_parser
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    reader = _Text()
    reader.feed((site / "cli.html").read_text())
    page = _squeezed("".join(reader.parts))
    seen = 0
    for program, spec in PROGRAMS.items():
        for name, parser in commands(load_parser(spec)):
            help_text = _squeezed(_help_of(program, name.split()[1:]))
            if parser.description:
                assert _squeezed(parser.description) in page, name
            for _title, rows in arguments(parser):
                for invocation, text in rows:
                    assert _squeezed(invocation) in help_text and _squeezed(text) in help_text, (name, invocation)
                    assert _squeezed(invocation) in page and _squeezed(text) in page, (name, invocation)
                    seen += 1
    assert seen > 100  # every flag of both programs


# --- the site, in a browser (slow) ------------------------------------------------------------


def _chromium() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not (browser and driver):
        pytest.fail(INSTALL_CHROMIUM, pytrace=False)
    return browser, driver


@pytest.fixture(scope="module")
def served(site):
    """The built site over HTTP on the loopback address, as a reader's browser gets it."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    binary, driver_path = _chromium()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.fail(INSTALL_DOCS, pytrace=False)

    options = webdriver.ChromeOptions()
    options.binary_location = binary
    profile = tmp_path_factory.mktemp("chromium-profile")
    for flag in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1280,1600",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()


SCREENSHOTS = Path(os.environ.get("IDENTCHECK_SCREENSHOTS", ROOT / "docs" / "_build" / "screenshots"))

PAGES = {
    "index.html": ("identcheck", "Does a gate activation"),
    "api/identcheck.html": ("identcheck", "identcheck.check"),
    "tutorial.html": ("identcheck in a notebook", "Verdict: NOT IDENTIFIABLE"),
}


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_a_page_renders_in_chromium_without_console_errors(served, browser, page):
    from selenium.webdriver.common.by import By

    heading, text = PAGES[page]
    browser.get(f"{served}/{page}")
    assert heading in browser.find_element(By.TAG_NAME, "h1").text
    body = browser.find_element(By.TAG_NAME, "body").text
    assert text in body
    assert browser.find_element(By.CSS_SELECTOR, "nav").is_displayed()  # the theme's navigation rendered
    if page == "tutorial.html":  # the notebook's figures, from the stored outputs
        images = browser.find_elements(By.CSS_SELECTOR, "div.cell_output img")
        # the results' markdown tables (probes, grid values, paths) rendered as tables, not as text
        assert len(browser.find_elements(By.CSS_SELECTOR, "div.cell_output table")) >= 4
        assert len(images) >= 3
        assert all(browser.execute_script("return arguments[0].naturalWidth", image) > 0 for image in images)
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", images[0])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOTS / "tutorial_figure.png"))
        browser.execute_script("window.scrollTo(0, 0)")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / (page.replace("/", "_").replace(".html", ".png"))))
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors


@pytest.mark.slow
def test_the_search_index_loads_and_finds_a_page(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{served}/search.html?q=identifiable")
    WebDriverWait(browser, 30).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#search-results li"))
    )
    results = browser.find_elements(By.CSS_SELECTOR, "#search-results li a")
    assert len(results) >= 3
    assert browser.execute_script("return typeof Search !== 'undefined' && Search._index !== null")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    browser.save_screenshot(str(SCREENSHOTS / "search.png"))
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
