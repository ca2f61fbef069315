#!/usr/bin/env bash
# Refresh the JavaScript the book serves itself, so it renders offline:
# MathJax 3 (math), RequireJS + @jupyter-widgets/html-manager (saved widget state).
# Needs npm and the npm registry; the result is committed under book/_extra/vendor,
# so building the book never needs either. Versions are pinned here.
set -euo pipefail
MATHJAX=mathjax@3.2.2
REQUIREJS=requirejs@2.3.7
HTMLMANAGER=@jupyter-widgets/html-manager@1.0.15   # ipywidgets 8 widget protocol 2
NOTOSC=@fontsource/noto-sans-sc@5.3.0   # Chinese quotations (found page), regular weight, woff2 subsets only
AXE=axe-core@4.10.3   # the accessibility audit of the browser test (tests/vendor/axe-core; not served by the book)
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/book/_extra/vendor   # html_extra_path copies it to the site root
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
for p in $MATHJAX $REQUIREJS $HTMLMANAGER $NOTOSC $AXE; do
  mkdir -p "x/$p"; tar xzf "$(npm pack --silent "$p")" -C "x/$p"
done
ours=$(mktemp -d); cp "$dest"/mathjax_hub_shim.js "$dest"/widgets_requirejs_paths.js "$ours"/   # ours, not vendored
rm -rf "$dest"; mkdir -p "$dest/mathjax/output/chtml/fonts" "$dest/mathjax/input/tex" "$dest/html-manager"
cp "$ours"/*.js "$dest"/; rm -rf "$ours"
fonts=$dest/html-manager   # widgets_requirejs_paths.js points the manager here
mj=x/$MATHJAX/package
cp "$mj/LICENSE" "$mj/es5/tex-mml-chtml.js" "$dest/mathjax/"
cp -r "$mj/es5/output/chtml/fonts/woff-v2" "$dest/mathjax/output/chtml/fonts/"
cp -r "$mj/es5/input/tex/extensions" "$dest/mathjax/input/tex/"
cp -r "$mj/es5/a11y" "$mj/es5/ui" "$dest/mathjax/"
cp "x/$REQUIREJS/package/require.js" "$dest/require.js"
sed -n '1,/\*\//p' "x/$REQUIREJS/package/require.js" > "$dest/require.LICENSE.txt"
hm=x/$HTMLMANAGER/package
cp "$hm/dist/embed-amd.js" "$hm/dist/embed.js.LICENSE.txt" "$dest/html-manager/"
cp "$hm"/dist/*.woff "$hm"/dist/*.woff2 "$hm"/dist/*.ttf "$hm"/dist/*.eot "$hm"/dist/*.svg "$fonts/"
# Noto Sans SC: the 400 weight's unicode-range subsets (the browser loads only the subsets a page's
# characters fall in), woff2 only (every browser that runs MathJax 3 reads woff2), with its licence.
nf=x/$NOTOSC/package; fdest=$dest/fonts/noto-sans-sc
mkdir -p "$fdest/files"
cp "$nf"/files/*-400-normal.woff2 "$fdest/files/"
cp "$nf/LICENSE" "$fdest/LICENSE"
sed -E "s#, url\(([^)]*)\.woff\) format\('woff'\)##" "$nf/400.css" > "$fdest/index.css"
cat > "$dest/README.md" <<EOT
Third-party JavaScript served by the book (so it renders offline), from the npm registry
by tools/vendor_js.sh: $MATHJAX (Apache-2.0, LICENSE), $REQUIREJS (MIT,
require.LICENSE.txt), $HTMLMANAGER (BSD-3-Clause, licenses of the bundle in
html-manager/embed.js.LICENSE.txt), $NOTOSC (SIL Open Font License 1.1,
fonts/noto-sans-sc/LICENSE; the regular weight's woff2 subsets). Do not edit; rerun the script.
EOT
axedest=$root/tests/vendor/axe-core
rm -rf "$axedest"; mkdir -p "$axedest"
cp "x/$AXE/package/axe.min.js" "x/$AXE/package/LICENSE" "$axedest/"
echo "$AXE (MPL-2.0, LICENSE) from the npm registry by tools/vendor_js.sh, for tests/test_book_browser.py." > "$axedest/README.md"
du -sh "$dest" "$axedest"
