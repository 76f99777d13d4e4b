"""What the framework pages say each template engine does to a fortune's message, shown on the installed
versions: which characters each escapes and how it spells them, and which engines' defaults would fail
TechEmpower's fortune verifier (bench/run/fortunes_check.py)."""
from __future__ import annotations

import html
import subprocess
import sys


from backends.seed import FORTUNES
from bench.run import fortunes_check
from lessontools import needs
from servers.apps import contract
from serverproc import ROOT

MESSAGE = "<script>\"x\"'y'&+—フ"
TEMPLATES = ROOT / "servers" / "apps" / "templates"
# markupsafe.escape (Jinja2's autoescape): the five characters, quotes as decimal references
MARKUPSAFE = "&lt;script&gt;&#34;x&#34;&#39;y&#39;&amp;+—フ"
# html.escape (the stdlib app, tornado's xhtml_escape, Django's escape, renoir's htmlescape): &quot; and &#x27;
HTML_ESCAPE = "&lt;script&gt;&quot;x&quot;&#x27;y&#x27;&amp;+—フ"


def fortunes_rows() -> list[dict]:
    rows = [{"id": fid, "message": message} for fid, message in FORTUNES]
    rows.append({"id": 0, "message": contract.ADDITIONAL_FORTUNE})
    return sorted(rows, key=lambda row: row["message"])


def verifier_failures(page: str) -> list[str]:
    headers = {"server": "t", "date": "Mon, 01 Jan 2024 00:00:00 GMT", "content-type": contract.HTML,
               "content-length": str(len(page))}
    return [p.message for p in fortunes_check.failures("/fortunes", headers, page.encode())]


def test_jinja2_autoescape_spells_quotes_as_decimal_references_and_a_bare_template_escapes_nothing():
    import jinja2

    assert jinja2.Environment(autoescape=True).from_string("{{ m }}").render(m=MESSAGE) == MARKUPSAFE
    # jinja2.Template, as a quick script writes it: autoescape off, the <script> row goes out as markup
    assert jinja2.Template("{{ m }}").render(m=MESSAGE) == MESSAGE
    bare = jinja2.Template((TEMPLATES / "fortunes.html").read_text()).render(fortunes=fortunes_rows())
    assert any("&lt;script&gt;" in failure for failure in verifier_failures(bare))


@needs("flask")
def test_flask_and_starlette_escape_html_templates_only_blacksheep_jinja_ones_too():
    import jinja2
    from flask import Flask
    from starlette.templating import Jinja2Templates

    from blacksheep.server.rendering.jinja2 import JinjaRenderer

    flask_env = Flask(__name__).jinja_env
    starlette_env = Jinja2Templates(directory=str(TEMPLATES)).env
    blacksheep_env = JinjaRenderer(jinja2.FileSystemLoader(str(TEMPLATES))).env
    for env in (flask_env, starlette_env):
        assert env.autoescape("fortunes.html") and not env.autoescape("fortunes.jinja")
    assert blacksheep_env.autoescape("fortunes.jinja") and blacksheep_env.autoescape("fortunes.html")


@needs("django")
def test_django_escapes_with_html_escape():
    script = (f"import django; from django.conf import settings; settings.configure(TEMPLATES=[{{'BACKEND': "
              f"'django.template.backends.django.DjangoTemplates'}}]); django.setup(); "
              f"from django.template import engines; "
              f"print(engines['django'].from_string('{{{{ m }}}}').render({{'m': {MESSAGE!r}}}), end='')")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out == HTML_ESCAPE == html.escape(MESSAGE)


@needs("tornado")
def test_tornado_escapes_every_expression_with_xhtml_escape():
    import tornado.template

    loader = tornado.template.Loader(str(TEMPLATES / "tornado"))
    assert loader.autoescape == "xhtml_escape"
    assert tornado.template.Template("{{ m }}").generate(m=MESSAGE).decode() == HTML_ESCAPE
    page = loader.load("fortunes.html").generate(fortunes=fortunes_rows()).decode()
    assert verifier_failures(page) == []


@needs("twisted")
def test_twisted_flattener_escapes_only_amp_lt_gt_in_text():
    from twisted.web.template import flattenString, tags

    out: list[bytes] = []
    flattenString(None, tags.td(MESSAGE)).addCallback(out.append)
    assert out[0].decode() == "<td>&lt;script&gt;\"x\"'y'&amp;+—フ</td>"


@needs("emmett")
def test_renoir_common_escape_is_html_escape_and_its_all_mode_fails_the_verifier():
    from renoir import Renoir

    assert Renoir(escape="common")._render(source="{{=m}}", context={"m": MESSAGE}) == HTML_ESCAPE
    common, everything = (Renoir(path=str(TEMPLATES), escape=mode) for mode in ("common", "all"))
    assert verifier_failures(common.render("emmett/fortunes.html", {"fortunes": fortunes_rows()})) == []
    # "all" writes every non-ASCII character as a decimal reference: TechEmpower's parser drops them
    page = everything.render("emmett/fortunes.html", {"fortunes": fortunes_rows()})
    assert "&#12501;" in page and any("フレームワークのベンチマーク" in f for f in verifier_failures(page))


def test_templates_are_package_data():
    """pip installs the templates with the apps (compose builds a wheel): pyproject lists them all."""
    import tomllib

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["servers.apps"]
    apps = ROOT / "servers" / "apps"
    listed = {path for pattern in patterns for path in apps.glob(pattern)}
    assert {path for path in TEMPLATES.rglob("*") if path.is_file()} <= listed


@needs("sanic", "sanic_ext")
def test_sanic_ext_would_add_every_built_in_extension_and_the_app_adds_templating_alone(monkeypatch):
    from sanic import Sanic
    from sanic.application.ext import setup_ext

    from servers.apps.sanic_app import create_app
    from servers.core.options import Options

    monkeypatch.setattr(Sanic, "test_mode", True)  # apps of the same name in one process
    extended = Sanic("lesson_auto_extend")
    setup_ext(extended)  # what Sanic's startup does with AUTO_EXTEND once sanic-ext is installed
    assert {"OpenAPIExtension", "HTTPExtension", "InjectionExtension"} <= {type(e).__name__ for e in extended.ext.extensions}
    assert any(route.path.startswith("docs") for route in extended.router.routes)
    app = create_app(Options("sanic", "127.0.0.1", 1, 1, "mongodb://127.0.0.1:1/test", "redis://127.0.0.1:1/0",
                             "pymongo"))
    assert [type(e).__name__ for e in app.ext.extensions] == ["TemplatingExtension"]
    assert not any(route.path.startswith("docs") for route in app.router.routes)
