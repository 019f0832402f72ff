// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JetStream stream the events go to: named (--nats-stream, created
 * when absent) or found by subject; every subject we publish to must be
 * one of its, or publishing would only time out.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "subject.h"
#include "common/say.h"

/* One line for a failed JetStream request about stream @name. */
static int say_js_failed(struct nats_conn *c, const char *what, natsStatus s,
			 jsErrCode jerr)
{
	char url[256];

	nats_conn_url(c, url, sizeof(url));
	if (s == NATS_NO_RESPONDERS || jerr == JSNotEnabledErr ||
	    jerr == JSNotEnabledForAccountErr)
		cli_say(c->o->prog, "NATS at %s has no JetStream: start nats-server with -js (or a jetstream block in its configuration)\n",
			url);
	else
		cli_say(c->o->prog, "%s at %s failed: %s\n", what, url,
			nats_reason(s));
	return s == NATS_TIMEOUT ? -ETIMEDOUT : -EIO;
}

/* @list split at commas into @v (at most @max): the count. */
static int split(char *list, const char **v, int max)
{
	char *save = NULL;
	int n = 0;

	for (char *t = strtok_r(list, ",", &save); t && n < max;
	     t = strtok_r(NULL, ",", &save))
		v[n++] = t;
	return n;
}

static int create_stream(struct nats_conn *c, jsStreamInfo **si)
{
	const struct nats_opts *o = c->o;
	char *subjects = o->stream_subjects ? strdup(o->stream_subjects) :
			 nats_subject_stream_default(o->subject);
	const char *v[64];
	jsStreamConfig cfg;
	jsErrCode jerr = 0;
	natsStatus s;
	int err = 0;

	if (!subjects)
		return -ENOMEM;
	if (!*subjects) {
		cli_say(o->prog, "--subject '%s' starts with a variable: give the new stream's subjects with --nats-stream-subjects\n",
			o->subject);
		free(subjects);
		return -EINVAL;
	}
	jsStreamConfig_Init(&cfg);
	cfg.Name = o->stream;
	cfg.Subjects = v;
	cfg.SubjectsLen = split(subjects, v, 64);
	cfg.Storage = js_FileStorage;
	cfg.Replicas = o->replicas;
	cfg.MaxAge = o->max_age_ns;
	cfg.MaxBytes = o->max_bytes ? o->max_bytes : -1;
	s = js_AddStream(si, c->js, &cfg, NULL, &jerr);
	if (s == NATS_OK)
		cli_say(o->prog, "created stream %s (subjects %s, %d replica%s)\n",
			o->stream, o->stream_subjects ? o->stream_subjects : v[0],
			o->replicas, o->replicas == 1 ? "" : "s");
	else if (jerr != JSStreamSubjectOverlapErr)
		err = say_js_failed(c, "creating the stream", s, jerr);
	else {
		cli_say(o->prog, "creating stream %s failed: its subjects (%s) overlap another stream's; name that one with --nats-stream\n",
			o->stream, o->stream_subjects ? o->stream_subjects : v[0]);
		err = -EEXIST;
	}
	free(subjects);
	return err;
}

/* The name of the stream holding @subj, in @name; -ENOENT after a line. */
static int find_stream(struct nats_conn *c, const char *subj, char *name,
		       size_t sz)
{
	jsStreamNamesList *list = NULL;
	jsErrCode jerr = 0;
	jsOptions jo;
	natsStatus s;

	jsOptions_Init(&jo);
	jo.Stream.Info.SubjectsFilter = subj;
	s = js_StreamNames(&list, c->js, &jo, &jerr);
	if (s == NATS_OK && list->Count) {
		snprintf(name, sz, "%s", list->List[0]);
		jsStreamNamesList_Destroy(list);
		return 0;
	}
	jsStreamNamesList_Destroy(list);
	if (s != NATS_OK && s != NATS_NOT_FOUND)
		return say_js_failed(c, "looking for the stream", s, jerr);
	cli_say(c->o->prog, "no JetStream stream holds subject '%s'; name one for perfbuf to create with --nats-stream NAME\n",
		subj);
	return -ENOENT;
}

/* Is every subject one of the stream's? -EINVAL after a line if not. */
static int check_subjects(struct nats_conn *c, const jsStreamInfo *si,
			  char *const *subj, int n)
{
	const jsStreamConfig *cfg = si->Config;
	char list[512] = "";

	for (int i = 0; i < n; i++) {
		bool ok = false;

		for (int k = 0; k < cfg->SubjectsLen && !ok; k++)
			ok = nats_subject_match(cfg->Subjects[k], subj[i]);
		if (ok)
			continue;
		for (int k = 0; k < cfg->SubjectsLen; k++) {
			size_t len = strlen(list);

			snprintf(list + len, sizeof(list) - len, "%s%s",
				 k ? ", " : "", cfg->Subjects[k]);
		}
		cli_say(c->o->prog, "stream %s does not hold subject '%s' (its subjects: %s); use a --subject it holds, or another --nats-stream\n",
			cfg->Name, subj[i], *list ? list : "none");
		return -EINVAL;
	}
	return 0;
}

int nats_stream_ensure(struct nats_conn *c, char *const *subj, int n)
{
	const char *name = c->o->stream;
	jsStreamInfo *si = NULL;
	jsErrCode jerr = 0;
	char found[256];
	natsStatus s;
	int err;

	if (!name) {
		err = find_stream(c, subj[0], found, sizeof(found));
		if (err)
			return err;
		name = found;
	}
	s = js_GetStreamInfo(&si, c->js, name, NULL, &jerr);
	if (c->o->stream && (s == NATS_NOT_FOUND || jerr == JSStreamNotFoundErr))
		err = create_stream(c, &si);
	else if (s != NATS_OK)
		err = say_js_failed(c, "asking for the stream", s, jerr);
	else
		err = 0;
	if (!err)
		err = check_subjects(c, si, subj, n);
	jsStreamInfo_Destroy(si);
	return err;
}
