/*
 * What the four reading-comprehension pages share (rc_author.js, rc_select.js, rc_answer.js,
 * rc_grade.js), as window.evalsiteRC: building nodes with textContent only (never HTML: an
 * article, a question or an answer may hold "<script>"), the article, the progress bar, the
 * drafts kept in the browser, the page's answer keys and the handling of a refused answer.
 * Loaded before task-common.js and the page's own script; it reads window.evalsiteTask only
 * when called. Vanilla JS, no build step.
 */
(function () {
  "use strict";

  function root() {
    return document.getElementById("task");
  }

  function format(template, values) {
    return String(template || "").replace(/\{(\w+)\}/g, function (match, name) {
      return Object.prototype.hasOwnProperty.call(values, name) ? String(values[name]) : match;
    });
  }

  function make(tag, className, text) {
    var node = document.createElement(tag);
    if (className) {
      node.className = className;
    }
    if (text !== undefined && text !== null) {
      node.textContent = text;
    }
    return node;
  }

  function clear(node) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
  }

  // A worker-facing text in the target language (an article paragraph, a question, an
  // answer): its own direction, the article's language.
  function text(tag, className, value) {
    var node = make(tag, className, value);
    node.setAttribute("dir", "auto");
    node.setAttribute("lang", root().dataset.targetLang || "");
    return node;
  }

  // The article: one paragraph per text, drawn once (the grading page gets it with every
  // question).
  function showArticle(container, paragraphs) {
    var key = JSON.stringify(paragraphs || []);
    if (container.dataset.shown === key) {
      return;
    }
    clear(container);
    (paragraphs || []).forEach(function (paragraph) {
      container.appendChild(make("p", "rc-paragraph", paragraph));
    });
    container.dataset.shown = key;
  }

  function showProgress(text, done, total) {
    var bar = document.getElementById("progress-bar");
    document.getElementById("progress-text").textContent = text;
    bar.setAttribute("aria-valuemax", String(total));
    bar.setAttribute("aria-valuenow", String(done));
    bar.setAttribute("aria-valuetext", text);
    document.getElementById("progress-fill").style.width = (total ? (100 * done) / total : 0) + "%";
  }

  // A box grows with its text (no inner scroll bar on a phone).
  function fit(box) {
    box.style.height = "auto";
    box.style.height = box.scrollHeight + 4 + "px";
  }

  // Drafts: what the worker typed or chose and has not sent, kept in the tab's session
  // storage under the task's own URL, so that a reload finds it (storage may be refused, in
  // a private window or a third-party iframe: then there are simply no drafts).
  var DRAFT_PREFIX = "evalsite-rc:";

  function draftKey() {
    return DRAFT_PREFIX + window.location.pathname;
  }

  function loadDraft() {
    try {
      var stored = window.sessionStorage.getItem(draftKey());
      var value = stored ? JSON.parse(stored) : null;
      return value && typeof value === "object" ? value : null;
    } catch (error) {
      return null;
    }
  }

  function saveDraft(value) {
    try {
      window.sessionStorage.setItem(draftKey(), JSON.stringify(value));
    } catch (error) {
      // No storage: nothing is kept, and nothing else changes.
    }
  }

  function dropDraft() {
    try {
      window.sessionStorage.removeItem(draftKey());
    } catch (error) {
      // As above.
    }
  }

  // The keys of a choice: its English letter and the first letter of the word on the page,
  // unless that is one of the other choice's keys.
  function keysFor(letter, word, others) {
    var found = [letter];
    var first = (word || "").charAt(0).toLowerCase();
    if (first && first !== letter && others.indexOf(first) < 0) {
      found.push(first);
    }
    return found;
  }

  // A refused or failed request. 410: the task is over (a link to a new one); 409, or an
  // answer naming the page or question: out of step (another tab?), so reload what the
  // server has; a field the page shows (data-field): its message beside it, and the focus
  // there; anything else in the error box. Returns what the page should do: "over",
  // "reload" or "retry".
  function refused(answer, urls, showNear) {
    var shared = window.evalsiteTask;
    var body = answer.body || {};
    var box = document.getElementById("error");
    if (answer.status === 410) {
      shared.showError(box, body.error, urls.restart);
      return "over";
    }
    if (answer.status === 409 || body.field === "page" || body.field === "question") {
      shared.showError(box, body.error);
      return "reload";
    }
    var target = body.field ? document.querySelector('[data-field="' + cssName(body.field) + '"]') : null;
    if (target && showNear) {
      showNear(target, body.error);
    } else {
      shared.showError(box, body.error);
    }
    return "retry";
  }

  // A server field name ("questions.2.answer") as a CSS attribute value: letters, digits,
  // dots and underscores only, so nothing else can be asked of the selector.
  function cssName(field) {
    return String(field).replace(/[^\w.]/g, "");
  }

  function post(url, payload) {
    return window.evalsiteTask.call(url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    });
  }

  function get(url) {
    return window.evalsiteTask.call(url, { headers: { Accept: "application/json" } });
  }

  // --- A page of boxes (writing questions, answering them) -----------------------------------
  //
  // The whole page is one answer: the boxes are filled in any order, kept as drafts, and sent
  // together ({page, <name>: {...}, client_started_at, client_duration_ms}) once none is
  // empty. The page script gives:
  //   name: the answer's field ("questions", "answers");
  //   build(item): a question's section and its boxes, [{box, field, empty}] (field: the
  //     server's name of the box, as in its messages; empty: what to say when it is empty);
  //   collect(item, values): the answer's value for a question, from its boxes' values.
  // Keyboard: Enter goes on to the next box (the last one: to the Send button); Ctrl+Enter
  // (Cmd+Enter) sends.

  function boxesPage(options) {
    var shared = window.evalsiteTask;
    var task = root();
    if (!task) {
      return;
    }
    var words = task.dataset;
    var el = {
      article: document.getElementById("article"),
      items: document.getElementById("questions"),
      hint: document.getElementById("hint"),
      error: document.getElementById("error"),
      send: document.getElementById("next"),
    };
    var urls = {
      item: words.itemUrl,
      submit: words.submitUrl,
      page: words.pageUrl,
      restart: words.restartUrl,
    };
    var state = {
      page: null, // the page's key, once loaded
      items: [], // {position, boxes: [{box, field, empty, message}]}
      busy: false,
      over: false, // expired or returned: nothing more can be sent
      shownAt: 0,
      startedAt: null,
    };

    function allBoxes() {
      var found = [];
      state.items.forEach(function (item) {
        found = found.concat(item.boxes);
      });
      return found;
    }

    function filled(entry) {
      return entry.box.value.trim() !== "";
    }

    function update() {
      var done = state.items.filter(function (item) {
        return item.boxes.every(filled);
      }).length;
      var total = state.items.length;
      showProgress(format(words.labelProgress, { done: done, total: total }), done, total);
      el.send.disabled = state.busy || state.over || state.page === null;
      el.hint.classList.toggle("is-answered", total > 0 && done === total);
    }

    function keep() {
      var values = {};
      allBoxes().forEach(function (entry) {
        values[entry.field] = entry.box.value;
      });
      saveDraft({ page: state.page, values: values });
    }

    function say(entry, message) {
      entry.message.textContent = message;
      entry.message.hidden = !message;
      entry.box.setAttribute("aria-invalid", message ? "true" : "false");
    }

    function setLocked(locked) {
      allBoxes().forEach(function (entry) {
        entry.box.readOnly = locked;
      });
      update();
    }

    function render(next) {
      showArticle(el.article, next.article);
      clear(el.items);
      var draft = loadDraft();
      var values = draft && draft.page === next.page ? draft.values || {} : {};
      state.page = next.page;
      state.items = next.questions.map(function (data, index) {
        var built = options.build(data, index);
        var boxes = built.boxes.map(function (entry) {
          var message = make("p", "error rc-box-message");
          message.setAttribute("role", "alert");
          message.hidden = true;
          message.id = "message-" + entry.field.replace(/\./g, "-");
          entry.box.setAttribute("aria-describedby", message.id + " keys");
          entry.box.dataset.field = entry.field;
          entry.box.parentNode.insertBefore(message, entry.box.nextSibling);
          if (typeof values[entry.field] === "string") {
            entry.box.value = values[entry.field];
          }
          return { box: entry.box, field: entry.field, empty: entry.empty, message: message };
        });
        el.items.appendChild(built.section);
        return { position: data.position, data: data, boxes: boxes };
      });
      var list = allBoxes();
      list.forEach(function (entry, index) {
        entry.box.setAttribute("enterkeyhint", index === list.length - 1 ? "done" : "next");
        entry.box.addEventListener("input", function () {
          fit(entry.box);
          if (filled(entry)) {
            say(entry, "");
          }
          keep();
          update();
        });
        fit(entry.box);
      });
      state.busy = false;
      state.shownAt = performance.now();
      state.startedAt = new Date().toISOString();
      update();
      // The page opens at its top (the article comes first); the focus waits in the first
      // empty box, so that typing starts there.
      var first = list.filter(function (entry) {
        return !filled(entry);
      })[0];
      if (first) {
        first.box.focus({ preventScroll: true });
      }
    }

    function finish() {
      // The task page shows the completion page once the assignment is submitted.
      window.location.replace(urls.page);
    }

    function show(body) {
      if (body.done || !body.next) {
        dropDraft();
        finish();
        return;
      }
      render(body.next);
    }

    function load() {
      get(urls.item).then(
        function (answer) {
          if (answer.body.ok) {
            show(answer.body);
          } else {
            fail(answer);
          }
        },
        function () {
          shared.showError(el.error, words.labelLoadError);
        }
      );
    }

    function fail(answer) {
      state.busy = false;
      var outcome = refused(answer, urls, function (target, message) {
        var entry = allBoxes().filter(function (candidate) {
          return candidate.box === target;
        })[0];
        say(entry, message);
        entry.box.focus();
      });
      if (outcome === "over") {
        state.over = true;
        setLocked(true);
      } else if (outcome === "reload") {
        load();
      } else {
        setLocked(false);
      }
    }

    function send() {
      if (state.busy || state.over || state.page === null) {
        return;
      }
      shared.clearError(el.error);
      var empty = allBoxes().filter(function (entry) {
        return !filled(entry);
      });
      if (empty.length) {
        empty.forEach(function (entry) {
          say(entry, entry.empty);
        });
        empty[0].box.focus();
        return;
      }
      var answers = {};
      state.items.forEach(function (item) {
        answers[String(item.position)] = options.collect(
          item.data,
          item.boxes.map(function (entry) {
            return entry.box.value;
          })
        );
      });
      var payload = {
        page: state.page,
        client_started_at: state.startedAt,
        client_duration_ms: Math.max(0, Math.round(performance.now() - state.shownAt)),
      };
      payload[options.name] = answers;
      state.busy = true;
      setLocked(true);
      post(urls.submit, payload).then(
        function (answer) {
          if (answer.body.ok) {
            show(answer.body);
          } else {
            fail(answer);
          }
        },
        function () {
          // Kept as they are (and in the draft): the same page can be sent again.
          state.busy = false;
          setLocked(false);
          shared.showError(el.error, words.labelNetworkError);
        }
      );
    }

    el.send.addEventListener("click", send);
    el.items.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || event.isComposing || event.target.tagName !== "TEXTAREA") {
        return;
      }
      event.preventDefault();
      if (event.ctrlKey || event.metaKey) {
        send();
        return;
      }
      // A question or an answer is one line: Enter goes on instead of breaking it.
      var list = allBoxes();
      var index = list.findIndex(function (entry) {
        return entry.box === event.target;
      });
      if (index >= 0 && index + 1 < list.length) {
        list[index + 1].box.focus();
      } else {
        el.send.focus();
      }
    });
    document.addEventListener("keydown", function (event) {
      // Ctrl+Enter from anywhere else on the page (a box handles its own).
      if (
        event.key === "Enter" &&
        (event.ctrlKey || event.metaKey) &&
        !event.isComposing &&
        event.target.tagName !== "TEXTAREA"
      ) {
        event.preventDefault();
        send();
      }
    });
    load();
  }

  window.evalsiteRC = {
    format: format,
    make: make,
    clear: clear,
    text: text,
    showArticle: showArticle,
    showProgress: showProgress,
    fit: fit,
    loadDraft: loadDraft,
    saveDraft: saveDraft,
    dropDraft: dropDraft,
    keysFor: keysFor,
    refused: refused,
    post: post,
    get: get,
    boxesPage: boxesPage,
  };
})();
