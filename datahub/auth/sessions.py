"""Issuing, recording and ending sessions (refresh-token families and access tokens)."""
import uuid
from datetime import datetime, timezone

import sqlalchemy as sa
from flask import current_app, request
from flask_jwt_extended import create_access_token, create_refresh_token

from datahub.auth.models import RefreshToken, RevokedAccessToken
from datahub.config import as_timedelta
from datahub.database import utcnow
from datahub.extensions import db


def issue_access_token(user):
    return create_access_token(identity=user.id, additional_claims={"ver": user.token_version})


def issue_refresh_token(user, family_id=None):
    """Create a refresh token and its server-side record (not yet committed)."""
    now = utcnow()
    jti = str(uuid.uuid4())
    lifetime = as_timedelta(current_app.config["JWT_REFRESH_TOKEN_EXPIRES"])
    record = RefreshToken(
        jti=jti,
        user_id=user.id,
        family_id=family_id or str(uuid.uuid4()),
        issued_at=now,
        expires_at=now + lifetime,
        user_agent=(request.user_agent.string or None) and request.user_agent.string[:512],
        client_address=request.remote_addr,
    )
    db.session.add(record)
    token = create_refresh_token(
        identity=user.id,
        expires_delta=lifetime,
        additional_claims={"jti": jti, "fam": record.family_id},
    )
    return token, record


def revoke_refresh_token(jti):
    db.session.execute(
        sa.update(RefreshToken)
        .where(RefreshToken.jti == jti, RefreshToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


def revoke_access_token(jti, exp):
    """Block one access token until it would have expired anyway."""
    if db.session.get(RevokedAccessToken, jti) is None:
        db.session.add(
            RevokedAccessToken(jti=jti, expires_at=datetime.fromtimestamp(exp, timezone.utc))
        )


def end_all_sessions(user):
    """Revoke every refresh token of ``user`` and void the access tokens already out."""
    db.session.execute(
        sa.update(RefreshToken)
        .where(RefreshToken.user_id == user.id, RefreshToken.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    user.token_version = (user.token_version or 0) + 1
