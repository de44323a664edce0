/*
 * Reading comprehension, answering questions (issue 14 stage 3; 000 section 5.3): an article
 * in one translation (the page is never told which), then its questions, each with a box for
 * an answer in a few words.
 *
 * The page's HTML holds neither: this script fetches them from the item URL,
 *   {page, article: [paragraph, ...], questions: [{position, text}, ...]}
 * shows them with textContent only, and sends the whole page at once (rc_common.js,
 * boxesPage) to the submit URL:
 *   {page, answers: {"<position>": "..."}, client_started_at, client_duration_ms}
 * What is typed is kept in the tab's session storage until it is sent: a reload finds it.
 * Keyboard: Enter goes on to the next question, Ctrl+Enter sends, Tab moves between the boxes.
 */
(function () {
  "use strict";

  var rc = window.evalsiteRC;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;

  rc.boxesPage({
    name: "answers",
    build: function (data) {
      var n = data.position;
      var section = rc.make("section", "rc-item");
      section.id = "item-" + n;
      var title = rc.make("h3", "rc-item-title", rc.format(words.labelQuestion, { n: n }));
      title.id = "question-" + n + "-title";
      section.appendChild(title);
      section.setAttribute("aria-labelledby", title.id);
      section.appendChild(rc.text("p", "rc-question-text", data.text));
      var id = "answer-" + n;
      var caption = rc.make("label", "rc-label", rc.format(words.labelAnswerBox, { n: n }));
      caption.htmlFor = id;
      section.appendChild(caption);
      var area = rc.make("textarea", "rc-box");
      area.id = id;
      area.rows = 1;
      area.setAttribute("dir", "auto");
      area.setAttribute("lang", words.targetLang);
      area.setAttribute("autocomplete", "off");
      section.appendChild(area);
      return {
        section: section,
        boxes: [
          {
            box: area,
            field: "answers." + n,
            empty: rc.format(words.labelEmptyAnswer, { n: n }),
          },
        ],
      };
    },
    collect: function (data, values) {
      return values[0];
    },
  });
})();
