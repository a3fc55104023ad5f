"""credentials: each table link and each phone gets its own revocable key (stored hashed), so that no
page cookie carries the game's token and a phone or a link can be taken back

Revision ID: 0004_credentials
Revises: 0003_game_revision
Create Date: 2026-11-26 10:20:00

"""
from alembic import op
import sqlalchemy as sa


revision = '0004_credentials'
down_revision = '0003_game_revision'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('credentials',
    sa.Column('id', sa.String(length=16), nullable=False),
    sa.Column('game_id', sa.String(length=32), nullable=False),
    sa.Column('kind', sa.String(length=8), nullable=False),
    sa.Column('label', sa.String(length=80), nullable=True),
    sa.Column('secret_hash', sa.String(length=64), nullable=False),
    sa.Column('parent_id', sa.String(length=16), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['game_id'], ['games.id'], ),
    sa.ForeignKeyConstraint(['parent_id'], ['credentials.id'], ),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_credentials_game_id'), ['game_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_credentials_parent_id'), ['parent_id'], unique=False)


def downgrade():
    with op.batch_alter_table('credentials', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_credentials_parent_id'))
        batch_op.drop_index(batch_op.f('ix_credentials_game_id'))

    op.drop_table('credentials')
