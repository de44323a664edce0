// The gold answer form in the admin (campaigns/admin/content.py, GoldAnswerAdmin): the best and
// worst output searches ask for the outputs of the segment chosen above them only, and choosing
// another segment clears the outputs chosen for the last one. Admin pages only: no worker page
// loads this, and it carries no answer.
//
// It waits for the page: Django's media merging puts this file before admin/js/jquery.init.js,
// which is what defines django.jQuery (run at once, it found none and narrowed nothing).
'use strict';
document.addEventListener('DOMContentLoaded', () => {
  const $ = window.django && window.django.jQuery;
  if (!$) {
    return;
  }
  $.ajaxPrefilter((options) => {
    const segment = document.getElementById('id_segment');
    if (!segment || !segment.value || !options.url || !options.url.includes('/goldanswer/outputs/')) {
      return;
    }
    const asked = 'segment=' + encodeURIComponent(segment.value);
    options.data = options.data ? options.data + '&' + asked : asked;
  });
  $(document).on('change', '#id_segment', () => {
    $('select[data-gold-output]').val(null).trigger('change');
  });
});
