/*
 * Translation task page (issue 15 item 1; 000 section 5.1, 004): a run of consecutive source
 * sentences of one document, each with a box for its translation.
 *
 * The page's HTML holds no sentence. This script fetches the run from the item URL:
 *   {sentences: [{position, image, source, translation}]}
 * (image: the URL of the source's picture, or null when the campaign shows sources as text,
 * then in source; translation: null until the sentence is saved, then the worker's saved
 * text). A picture is an <img> with "Source sentence n" as its text alternative: the source's
 * text never reaches the page. Texts are shown with textContent only (never as HTML). One
 * sentence is saved at a time, in order, to the submit URL as the worker moves on:
 *   {position, text, keystrokes, pastes, seconds, client_started_at, client_duration_ms}
 * A saved sentence is final (the server keeps every answer as given), so it is shown read-only
 * with its translation; a reload shows the saved ones and resumes at the first unsaved
 * sentence, with what was typed in its box kept (sessionStorage, this tab only). Later
 * sentences are shown without a box, for the document's context. Vanilla JS, no build step,
 * no cookies sent.
 *
 * Per sentence: the keys pressed in its box (typing and editing keys: not Enter, not a
 * modifier alone), the times text was pasted or dropped into it, and the seconds from when it
 * became the sentence to translate to its saving. A retry after a network error sends the same
 * measures again (the server takes an identical answer twice as one).
 *
 * Keyboard: the box has the focus; Enter (or Ctrl+Enter) saves and moves on; Tab reaches the
 * button. A translation is one sentence: Shift+Enter adds no line break either.
 */
(function () {
  "use strict";

  var shared = window.evalsiteTask;
  var call = shared.call;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;
  var el = {
    progressText: document.getElementById("progress-text"),
    progressBar: document.getElementById("progress-bar"),
    progressFill: document.getElementById("progress-fill"),
    sentences: document.getElementById("sentences"),
    error: document.getElementById("error"),
  };
  var urls = {
    item: root.dataset.itemUrl,
    submit: root.dataset.submitUrl,
    page: root.dataset.pageUrl,
    restart: root.dataset.restartUrl,
  };
  var CHARACTER = /^.$/u;
  var EDITING_KEYS = {
    Backspace: true,
    Delete: true,
    ArrowLeft: true,
    ArrowRight: true,
    ArrowUp: true,
    ArrowDown: true,
    Home: true,
    End: true,
    PageUp: true,
    PageDown: true,
    Dead: true,
    Unidentified: true,
    Process: true,
  };

  var current = {
    sentences: [], // {position, saved, section, area, message, note, savedMark, box, button}
    active: null, // the sentence being translated (null: none can be)
    total: 0,
    done: 0,
    busy: false, // a translation is being sent
    keystrokes: 0, // ... of the active sentence
    pastes: 0,
    shownAt: 0, // performance.now() when the active sentence became active
    startedAt: null, // the same moment as an ISO date, for the server
    pending: null, // the payload last sent and not yet saved (a retry sends it again)
  };

  function format(template, values) {
    return template.replace(/\{(\w+)\}/g, function (match, name) {
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

  // --- Drafts: what is typed in a box survives a reload of this tab ----------------------------

  function draftKey(position) {
    return "evalsite-translation:" + urls.page + ":" + position;
  }

  function readDraft(position) {
    try {
      return window.sessionStorage.getItem(draftKey(position)) || "";
    } catch (error) {
      return "";
    }
  }

  function writeDraft(position, text) {
    try {
      if (text) {
        window.sessionStorage.setItem(draftKey(position), text);
      } else {
        window.sessionStorage.removeItem(draftKey(position));
      }
    } catch (error) {
      // Storage may be off (a private window, MTurk's frame): the draft is then not kept.
    }
  }

  // --- Messages and progress -----------------------------------------------------------------

  function messageBox() {
    return current.active ? current.active.message : el.error;
  }

  function showMessage(message, restartUrl) {
    shared.showError(messageBox(), message, restartUrl);
  }

  function clearMessages() {
    current.sentences.forEach(function (sentence) {
      shared.clearError(sentence.message);
    });
    shared.clearError(el.error);
  }

  function showProgress() {
    var total = current.total;
    var text = format(words.labelSentence, { n: Math.min(current.done + 1, total), total: total });
    el.progressText.textContent = text;
    el.progressBar.setAttribute("aria-valuemax", String(total));
    el.progressBar.setAttribute("aria-valuenow", String(current.done));
    el.progressBar.setAttribute("aria-valuetext", text);
    el.progressFill.style.width = (total ? (100 * current.done) / total : 0) + "%";
  }

  // --- One sentence --------------------------------------------------------------------------

  function sourceNode(data) {
    if (data.image) {
      return window.evalsiteTask.sentenceImage(
        data.image,
        "tr-image",
        format(words.labelSource, { n: data.position })
      );
    }
    var text = make("p", "pe-context tr-source-text", data.source || "");
    text.setAttribute("dir", "auto");
    text.setAttribute("lang", words.sourceLang);
    return text;
  }

  function buildSentence(data) {
    var section = make("section", "pe-segment");
    var titleId = "sentence-" + data.position + "-title";
    section.id = "sentence-" + data.position;
    section.setAttribute("aria-labelledby", titleId);
    var title = make("h2", "pe-title");
    title.id = titleId;
    title.appendChild(
      make("span", null, format(words.labelSentence, { n: data.position, total: current.total }))
    );
    var savedMark = make("span", "pe-saved-mark", words.labelSaved);
    savedMark.hidden = true;
    title.appendChild(savedMark);
    section.appendChild(title);
    section.appendChild(sourceNode(data));
    var area = make("div", "pe-area");
    section.appendChild(area);
    var message = make("p", "error pe-message");
    message.setAttribute("role", "alert");
    message.hidden = true;
    section.appendChild(message);
    var note = make("p", "pe-note");
    note.setAttribute("aria-live", "polite");
    section.appendChild(note);
    var image = section.querySelector(".tr-image");
    if (image) {
      image.addEventListener("error", function () {
        note.textContent = words.labelImageError;
      });
    }
    return {
      position: data.position,
      saved: false,
      section: section,
      area: area,
      message: message,
      note: note,
      savedMark: savedMark,
      box: null,
      button: null,
    };
  }

  function showUpcoming(sentence) {
    sentence.section.className = "pe-segment is-upcoming";
    clear(sentence.area);
  }

  function showSaved(sentence, translation) {
    sentence.saved = true;
    sentence.box = null;
    sentence.button = null;
    sentence.section.className = "pe-segment is-saved";
    sentence.savedMark.hidden = false;
    shared.clearError(sentence.message);
    sentence.note.textContent = "";
    clear(sentence.area);
    sentence.area.appendChild(make("p", "pe-label", words.labelBox));
    var text = make("p", "pe-text pe-edit", translation);
    text.setAttribute("dir", "auto");
    text.setAttribute("lang", words.targetLang);
    sentence.area.appendChild(text);
    writeDraft(sentence.position, "");
  }

  function fit(box) {
    // The box grows with its text (no inner scroll bar on a phone).
    box.style.height = "auto";
    box.style.height = box.scrollHeight + 4 + "px";
  }

  function showTranslating(sentence) {
    sentence.section.className = "pe-segment is-current";
    clear(sentence.area);
    var boxId = "translation-" + sentence.position;
    var label = make("label", "pe-label", words.labelBox);
    label.htmlFor = boxId;
    sentence.area.appendChild(label);
    var box = make("textarea", "pe-box");
    box.id = boxId;
    box.rows = 2;
    box.value = readDraft(sentence.position);
    box.setAttribute("dir", "auto");
    box.setAttribute("lang", words.targetLang);
    box.setAttribute("aria-describedby", "keys");
    box.setAttribute("autocomplete", "off");
    if (words.maxChars) {
      box.maxLength = Number(words.maxChars);
    }
    sentence.area.appendChild(box);
    sentence.box = box;
    var buttons = make("div", "pe-buttons");
    var save = make("button", "button-primary pe-save", words.labelSave);
    save.type = "button";
    save.addEventListener("click", send);
    buttons.appendChild(save);
    sentence.area.appendChild(buttons);
    sentence.button = save;

    box.addEventListener("input", function () {
      fit(box);
      writeDraft(sentence.position, box.value);
    });
    box.addEventListener("paste", function () {
      current.pastes += 1;
    });
    box.addEventListener("drop", function () {
      current.pastes += 1;
    });
    box.addEventListener("keydown", function (event) {
      var key = event.key || "";
      // Ctrl+V, Ctrl+Z, Cmd+C...: shortcuts, not typing (a paste is counted apart). AltGr,
      // which some keyboards report as Ctrl+Alt, does type a character.
      var altGraph = event.getModifierState && event.getModifierState("AltGraph");
      if ((event.ctrlKey || event.metaKey) && !altGraph) {
        return;
      }
      if (CHARACTER.test(key) || EDITING_KEYS[key] === true) {
        current.keystrokes += 1;
      }
    });
    fit(box);
  }

  function setLocked(locked) {
    var sentence = current.active;
    if (!sentence || !sentence.box) {
      return;
    }
    sentence.box.readOnly = locked;
    sentence.button.disabled = locked;
  }

  function focusBox(scroll) {
    var box = current.active && current.active.box;
    if (!box) {
      return;
    }
    box.focus({ preventScroll: true });
    box.setSelectionRange(box.value.length, box.value.length);
    if (scroll) {
      current.active.section.scrollIntoView({ block: "center" });
    }
  }

  function activate(sentence, scroll) {
    current.active = sentence;
    current.keystrokes = 0;
    current.pastes = 0;
    current.pending = null;
    showTranslating(sentence);
    focusBox(scroll);
    current.shownAt = performance.now();
    current.startedAt = new Date().toISOString();
    root.dataset.position = String(sentence.position);
  }

  // --- The run: built once, then kept in step with the server ----------------------------------

  function render(list) {
    clear(el.sentences);
    current.active = null;
    current.sentences = list.map(function (data) {
      var sentence = buildSentence(data);
      el.sentences.appendChild(sentence.section);
      if (data.translation !== null) {
        showSaved(sentence, data.translation);
      } else {
        showUpcoming(sentence);
      }
      return sentence;
    });
  }

  function sameRun(list) {
    return (
      list.length === current.sentences.length &&
      list.every(function (data, index) {
        return current.sentences[index].position === data.position;
      })
    );
  }

  function sync(body) {
    current.total = body.progress.total;
    current.done = body.progress.done;
    var list = body.next.sentences;
    var firstLoad = current.sentences.length === 0;
    if (!sameRun(list)) {
      render(list);
    }
    list.forEach(function (data, index) {
      var sentence = current.sentences[index];
      if (data.translation !== null && !sentence.saved) {
        showSaved(sentence, data.translation);
      }
    });
    var next = null;
    current.sentences.forEach(function (sentence) {
      next = next || (sentence.saved ? null : sentence);
    });
    showProgress();
    current.busy = false;
    if (next && next !== current.active) {
      activate(next, !firstLoad || current.done > 0);
    } else {
      setLocked(false);
    }
  }

  function finish() {
    // The task page shows the completion page once the assignment is submitted.
    window.location.replace(urls.page);
  }

  function show(body) {
    if (body.done || !body.next) {
      finish();
      return;
    }
    sync(body);
  }

  // --- Saving --------------------------------------------------------------------------------

  function fail(answer) {
    var body = answer.body;
    current.busy = false;
    current.pending = null;
    if (answer.status === 410) {
      setLocked(true);
      showMessage(body.error, urls.restart);
      current.active = null;
    } else if (answer.status === 409 || body.field === "position") {
      showMessage(body.error);
      load(false);
    } else {
      setLocked(false);
      showMessage(body.error);
      focusBox(false);
    }
  }

  function send() {
    var sentence = current.active;
    if (!sentence || !sentence.box || current.busy) {
      return;
    }
    clearMessages();
    var text = sentence.box.value;
    if (!text.trim()) {
      showMessage(words.labelEmpty);
      focusBox(false);
      return;
    }
    current.busy = true;
    setLocked(true);
    var payload = current.pending;
    if (!payload || payload.position !== sentence.position || payload.text !== text) {
      payload = {
        position: sentence.position,
        text: text,
        keystrokes: current.keystrokes,
        pastes: current.pastes,
        seconds: Math.max(0, Math.round((performance.now() - current.shownAt) / 100) / 10),
        client_started_at: current.startedAt,
        client_duration_ms: Math.max(0, Math.round(performance.now() - current.shownAt)),
      };
    }
    current.pending = payload;
    call(urls.submit, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then(
      function (answer) {
        if (answer.body.ok) {
          current.pending = null;
          show(answer.body);
        } else {
          fail(answer);
        }
      },
      function () {
        // Kept as it is: the same translation can be sent again (the server is idempotent).
        current.busy = false;
        setLocked(false);
        showMessage(words.labelNetworkError);
        focusBox(false);
      }
    );
  }

  function load(clearFirst) {
    call(urls.item, { headers: { Accept: "application/json" } }).then(
      function (answer) {
        var body = answer.body;
        if (!body.ok) {
          fail(answer);
          return;
        }
        var message = clearFirst ? "" : messageBox().textContent;
        show(body);
        if (message) {
          showMessage(message);
        }
      },
      function () {
        shared.showError(el.error, words.labelLoadError);
      }
    );
  }

  // --- Keys ----------------------------------------------------------------------------------

  el.sentences.addEventListener("keydown", function (event) {
    var sentence = current.active;
    if (event.key !== "Enter" || event.isComposing || !sentence || !sentence.box) {
      return;
    }
    if (event.target !== sentence.box) {
      return; // Enter on the button is its click
    }
    event.preventDefault();
    if (event.shiftKey && !(event.ctrlKey || event.metaKey)) {
      // A translation is one sentence: no line breaks. Say how to save instead.
      sentence.note.textContent = words.labelKeys;
      return;
    }
    send();
  });

  load(true);
})();
