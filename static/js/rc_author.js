/*
 * Reading comprehension, writing questions (issue 14 stage 1; 000 section 5.3): the human
 * translation of an article, then a pair of boxes per question, the question and its sample
 * answer.
 *
 * The page's HTML holds neither: this script fetches them from the item URL,
 *   {page, article: [paragraph, ...], questions: [{position}, ...]}
 * shows the article with textContent only, and sends the whole page at once (rc_common.js,
 * boxesPage) to the submit URL:
 *   {page, questions: {"<position>": {question, answer}}, client_started_at,
 *    client_duration_ms}
 * What is typed is kept in the tab's session storage until it is sent: a reload finds it.
 * Keyboard: Enter goes on to the next box, Ctrl+Enter sends, Tab moves between the boxes.
 */
(function () {
  "use strict";

  var rc = window.evalsiteRC;
  var root = document.getElementById("task");
  if (!root) {
    return;
  }
  var words = root.dataset;

  function box(section, id, label) {
    var caption = rc.make("label", "rc-label", label);
    caption.htmlFor = id;
    section.appendChild(caption);
    var area = rc.make("textarea", "rc-box");
    area.id = id;
    area.rows = 2;
    area.setAttribute("dir", "auto");
    area.setAttribute("lang", words.targetLang);
    area.setAttribute("autocomplete", "off");
    section.appendChild(area);
    return area;
  }

  rc.boxesPage({
    name: "questions",
    build: function (data) {
      var n = data.position;
      var section = rc.make("section", "rc-item");
      section.id = "item-" + n;
      var question = box(section, "question-" + n, rc.format(words.labelQuestion, { n: n }));
      var answer = box(section, "answer-" + n, rc.format(words.labelAnswerBox, { n: n }));
      return {
        section: section,
        boxes: [
          {
            box: question,
            field: "questions." + n + ".question",
            empty: rc.format(words.labelEmptyQuestion, { n: n }),
          },
          {
            box: answer,
            field: "questions." + n + ".answer",
            empty: rc.format(words.labelEmptyAnswer, { n: n }),
          },
        ],
      };
    },
    collect: function (data, values) {
      return { question: values[0], answer: values[1] };
    },
  });
})();
