#!/bin/sh
# The fitting page's script (src/http/fit.js) through ESLint with the
# project's .eslintrc.json (the browser, ES2017, eslint:recommended): any
# error or warning fails. Without eslint it skips, except in CI (CI=true;
# Debian package: eslint).
set -u
src="${top_srcdir:-.}"
if ! command -v eslint >/dev/null 2>&1; then
	if [ "${CI:-}" = true ]; then
		echo "FAIL: eslint is missing (Debian: eslint; CI=true: required)" >&2
		exit 1
	fi
	echo "SKIP: eslint is missing (Debian: eslint)" >&2
	exit 77
fi
# Debian's eslint lives in /usr/share/nodejs, which a Node.js not built by
# Debian does not search by itself.
NODE_PATH="/usr/share/nodejs${NODE_PATH:+:$NODE_PATH}"
export NODE_PATH
# From the source tree: ESLint 6 takes only paths below the directory it
# runs in (a build tree's "../src/..." is refused).
cd "$src" || exit 1
exec eslint --no-eslintrc --config .eslintrc.json --max-warnings 0 src/http/fit.js
