// The fitting page's script: a placeholder until the page is written.
'use strict';
